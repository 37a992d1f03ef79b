"""Extra policy inputs computed from the default observation (and the mask).

A policy's input is the :class:`~allfives_env.env.encoders.DefaultEncoder` vector,
optionally followed by derived features; which ones is stored in the policy
record (``"features"``), so training, ``ppo:PATH`` and the evaluation all build
the same input. Derived features add no information (the observation already
holds it) and read nothing hidden; they spare the network a computation it
learns slowly:

``"reply_control"`` (3 x 112 values after the observation): for each legal placement
``4 * tile + slot`` of the seat to move,

* ``reply_best``: the most points (/35) the *next* seat could score with its
  very next placement after this one, over every tile the observer has not
  seen (not in its hand, not played) and that holds no suit the next seat is
  known to lack;
* ``reply_share``: the share of those tiles that would score at all.

The layout after the placement is modelled as the engine does (open value and
counting weight per slot, a double counting both halves, the lone double lead
becoming a spinner at an end); side branches that the placement would open
are left out (a cheap, documented approximation: features, not rules).
* ``control``: how many of the seat's other tiles (/7) still fit the layout
  after this placement (the same layout model): suit control, fewer forced
  draws and passes next turn.

``"lookahead"`` (6 x 112): ``"reply_control"``, then a model of the next two
turns in which the next seat plays greedy (the most points now, ties to the
heavier tile: :mod:`~allfives_env.agents.greedy`) from a hand drawn uniformly
among its possible tiles (unseen, none of its known lacking suits) with its
known hand size:

* ``next_points``: the expected points (/35) of that greedy reply, computed
  exactly under this model (hypergeometric: the reply is the best-ranked
  tile the hand holds);
* ``next_stuck``: the probability that none of its tiles fits (it must draw
  or pass);
* ``after_next_points``: the expected best points (/35) the seat after next
  can then score (the partner with 4 players, the other opponent with 3, the
  observer itself with 2: its own remaining tiles, known), over the next
  seat's greedy replies (or the unchanged layout when it is stuck) and that
  seat's possible hands (the same model; the two unseen hands are taken as
  independent, the replied tile excluded).

``"lookahead_infer"`` (6 x 112): ``"lookahead"`` with each seat's possible
tiles narrowed by what its placements this hand reveal if it plays greedy
(:mod:`allfives_env.agents.inference`): a tile that greedy would have played
instead of one of its placements is not in its hand. The same inputs, sharper
against greedy opponents (exact then), a model against others (an inference
that leaves a seat fewer possible tiles than its hand size is not believed):
the next seat's modelled greedy reply is drawn from fewer tiles, and the seat
after next's too when it is an opponent (3 players). The exclusions come from
the hand's history, which the observation does not hold: callers pass them
(``PolicyInput(..., exclusions=)``: the ``ppo:`` agent from the view's events,
training from an :class:`~allfives_env.agents.inference.ExclusionTracker`);
without them the features are ``"lookahead"``'s.
Zero for draws, passes and illegal actions. A policy trained on a set
warm-starts on any set that starts with it (``init_from``; the new inputs start
at zero weight): ``reply_control`` < ``lookahead``; ``lookahead_infer`` has the
same inputs as ``lookahead``, so each warm-starts the other.
"""

import math

import numpy as np
from numba import njit

from ...compiled.rules import placement_id, points_for_count, slot_of, tile_of
from ...env.encoders import default_layout
from ...rules.actions import DRAW
from ...rules.scoring import MAX_COUNT, MAX_POINTS, SIZE_SCALE
from ...rules.tiles import SUIT_TILES, TILE_HIGH, TILE_LOW
from ..greedy import greedy_key

#: The parts each feature set appends, in order; a set extends another when that one's parts are a prefix of its.
#: ``lookahead_infer``: the same parts as ``lookahead``, the next seats' possible tiles taking the greedy exclusions.
_PARTS = {"none": (), "reply_control": ("reply", "control"), "lookahead": ("reply", "control", "lookahead"),
          "lookahead_infer": ("reply", "control", "lookahead")}
FEATURES = tuple(_PARTS)
_PART_SIZE = {"reply": 2 * DRAW, "control": DRAW, "lookahead": 3 * DRAW}
#: blocks of 112 values after the observation
_BLOCKS = {name: sum(_PART_SIZE[p] for p in parts) // DRAW for name, parts in _PARTS.items()}
_LOW = np.array(TILE_LOW, np.int64)
_HIGH = np.array(TILE_HIGH, np.int64)
_SUIT_TILES = np.array(SUIT_TILES, np.int64)  # tiles carrying each suit (bit mask)
_CHOOSE = np.array([[math.comb(n, k) for k in range(29)] for n in range(29)], np.float64)  # C(n, k)


def feature_size(name: str) -> int:
    """How many values ``name`` appends to the observation."""
    if name not in FEATURES:
        raise ValueError(f"features={name!r} is not allowed; allowed: {list(FEATURES)}")
    return sum(_PART_SIZE[part] for part in _PARTS[name])


def action_blocks(features: str, num_players: int) -> list:
    """Start offsets of the input's 112-value blocks aligned with the placements (one value per action id):
    the observation's ``placement_points``, then each derived feature block. What a
    :class:`~allfives_env.agents.ppo.network.PolicyNet` action scorer reads per placement."""
    layout = default_layout(num_players)
    return [layout.offset("placement_points")] + [layout.size + k * DRAW for k in range(_BLOCKS[features])]


def extends(longer: str, shorter: str) -> bool:
    """Whether the input of ``longer`` starts with the whole input of ``shorter``."""
    parts = _PARTS[shorter]
    return _PARTS[longer][:len(parts)] == parts


class PolicyInput:
    """Builds the network input ``(B, obs_dim + extra)`` from observations and masks."""

    def __init__(self, features: str, num_players: int, divisor: int):
        self.features = features
        #: whether the caller should pass the greedy exclusions (``features`` ending in ``_infer``)
        self.infer = features.endswith("_infer")
        self._no_exclusions = np.zeros((0, 4), np.int64)
        self.extra = feature_size(features)
        layout = default_layout(num_players)
        self.obs_dim = layout.size
        self.size = self.obs_dim + self.extra
        self._num_players, self._divisor = int(num_players), int(divisor)
        names = ("hand", "played_by", "slot_available", "slot_value", "slot_double_end", "slot_counts",
                 "count", "is_lead", "lacks", "hand_sizes")
        self._off = np.array([layout.offset(name) for name in names], np.int64)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray = None, exclusions=None) -> np.ndarray:
        """``obs`` (B, obs_dim) float32 and ``mask`` (B, 114) -> the input (a view of ``obs`` when no features).
        ``exclusions`` (B, 4) int64, optional: per relative seat, tiles it is inferred not to hold
        (:func:`allfives_env.agents.inference.greedy_exclusions`), left out of the next seats' possible tiles."""
        if self.extra == 0:
            return obs
        if out is None:
            out = np.empty((obs.shape[0], self.size), np.float32)
        if exclusions is None:  # none inferred: a zero buffer kept between calls (this runs every step)
            if len(self._no_exclusions) < obs.shape[0]:
                self._no_exclusions = np.zeros((obs.shape[0], 4), np.int64)
            exclusions = self._no_exclusions[:obs.shape[0]]
        _reply_features(obs, mask, self._off, self._num_players, self._divisor, _LOW, _HIGH, _SUIT_TILES,
                        _BLOCKS[self.features], _CHOOSE, exclusions, out)
        return out


@njit(cache=True)
def _count_after(values, weights, count, slot, tile_low, tile_high):
    """The count after ``[low|high]`` goes to ``slot`` (Game.count_after's model), or -1 if it does not fit."""
    v = values[slot]
    if v < 0 or (tile_low != v and tile_high != v):
        return -1, 0, 0
    end = tile_high if tile_low == v else tile_low
    weight = 2 if tile_low == tile_high else 1
    after = count - v * weights[slot] + end * weight
    if slot < 2 and weights[1 - slot] == 0 and values[1 - slot] >= 0:  # a lone double lead becomes a spinner at an end
        after += 2 * values[1 - slot]
    return after, end, weight


@njit(cache=True)
def _tile_points(values, weights, count, tile, divisor, LOW, HIGH):
    """The most points ``tile`` scores with one placement on the layout (0: none scores or it does not fit).

    :func:`_best_play` also finds these points, with the greedy key and slot; this points-only loop is the
    hot one (every candidate tile of every placement), so it stays a loop of its own
    (``benchmarks/feature_speed.py`` times the features)."""
    got = 0
    for s in range(4):
        c, _, _ = _count_after(values, weights, count, s, LOW[tile], HIGH[tile])
        got = max(got, points_for_count(c, divisor))
    return got


@njit(cache=True)
def _fitting(values, SUITS):
    """The tiles that fit some open end of the layout ``values`` (bit mask): the only ones
    :func:`_count_after` places, so the loops below skip the rest before any arithmetic."""
    fits = 0
    for s in range(4):
        if values[s] >= 0:
            fits |= SUITS[values[s]]
    return fits


@njit(cache=True)
def _place(values, weights, count, slot, lo, hi, out_v, out_w):
    """Copy the layout into ``out_v``/``out_w`` with ``[lo|hi]`` attached at ``slot``; the new count, or -1."""
    for s in range(4):
        out_v[s], out_w[s] = values[s], weights[s]
    count1, end, weight = _count_after(values, weights, count, slot, lo, hi)
    if count1 < 0:
        return -1
    out_v[slot], out_w[slot] = end, weight
    if slot < 2 and weights[1 - slot] == 0 and values[1 - slot] >= 0:
        out_w[1 - slot] = 2
    return count1


@njit(cache=True)
def _best_play(values, weights, count, tile, divisor, LOW, HIGH):
    """(points, greedy key, slot) of ``tile``'s greedy placement on the layout; key -1 if it does not fit."""
    best_key, best_slot, best_points = -1, -1, 0
    for s in range(4):
        c, _, _ = _count_after(values, weights, count, s, LOW[tile], HIGH[tile])
        if c < 0:
            continue
        points = points_for_count(c, divisor)
        key = greedy_key(points, placement_id(tile, s))
        if key > best_key:
            best_key, best_slot, best_points = key, s, points
    return best_points, best_key, best_slot


@njit(cache=True)
def _ranked(values, weights, count, candidates, divisor, LOW, HIGH, SUITS, tiles, points, slots, keys):
    """The candidate tiles that fit, best greedy key first, into ``tiles``/``points``/``slots`` (``keys``:
    scratch); how many."""
    m = 0
    candidates &= _fitting(values, SUITS)
    for u in range(28):
        if not (candidates >> u) & 1:
            continue
        p, key, slot = _best_play(values, weights, count, u, divisor, LOW, HIGH)
        if key < 0:
            continue
        j = m  # insertion sort, descending key
        while j > 0 and keys[j - 1] < key:
            keys[j], tiles[j], points[j], slots[j] = keys[j - 1], tiles[j - 1], points[j - 1], slots[j - 1]
            j -= 1
        keys[j], tiles[j], points[j], slots[j] = key, u, p, slot
        m += 1
    return m


@njit(cache=True)
def _expected_best(values, weights, count, candidates, hand_size, divisor, LOW, HIGH, SUITS, CHOOSE, pts):
    """Expected points of the best placement of a hand of ``hand_size`` tiles drawn uniformly from
    ``candidates``: with the tiles ranked by points, the i-th is the best held with probability
    C(size - 1 - i, hand_size - 1) / C(size, hand_size). ``pts`` is scratch space (28 ints)."""
    size, m = 0, 0
    fits = _fitting(values, SUITS)
    for u in range(28):
        if not (candidates >> u) & 1:
            continue
        size += 1
        if not (fits >> u) & 1:
            continue
        got = _tile_points(values, weights, count, u, divisor, LOW, HIGH)
        if got:
            j = m  # insertion sort, descending
            while j > 0 and pts[j - 1] < got:
                pts[j] = pts[j - 1]
                j -= 1
            pts[j] = got
            m += 1
    if hand_size <= 0 or size == 0:
        return 0.0
    h = min(hand_size, size)
    total = 0.0
    for i in range(m):
        total += pts[i] * CHOOSE[size - 1 - i, h - 1]
    return total / CHOOSE[size, h]


@njit(cache=True)
def _lookahead(values, weights, count, cand1, n1, h1, cand2, h2, divisor, LOW, HIGH, SUITS, CHOOSE, scratch):
    """(next seat's expected greedy points, P(it has no fitting tile), expected best points of the seat after
    next) on the layout ``values``/``weights``/``count`` (see the module docstring). ``scratch``: (6, 28) ints."""
    if h1 <= 0 or n1 <= 0:
        return 0.0, 1.0, 0.0
    h = min(h1, n1)
    tiles, points, slots, keys, pts, after = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4], scratch[5]
    m = _ranked(values, weights, count, cand1, divisor, LOW, HIGH, SUITS, tiles, points, slots, keys)
    after_v, after_w = after[:4], after[4:8]
    denominator = CHOOSE[n1, h]
    expected, after_next = 0.0, 0.0
    for i in range(m):
        p = CHOOSE[n1 - 1 - i, h - 1] / denominator  # the i-th ranked tile is held, no better one
        if p == 0.0:
            break
        expected += p * points[i]
        u = tiles[i]
        count2 = _place(values, weights, count, slots[i], LOW[u], HIGH[u], after_v, after_w)
        after_next += p * _expected_best(after_v, after_w, count2, cand2 & ~(1 << u), h2, divisor, LOW, HIGH, SUITS,
                                         CHOOSE, pts)
    stuck = CHOOSE[n1 - m, h] / denominator
    if stuck > 0.0:
        after_next += stuck * _expected_best(values, weights, count, cand2, h2, divisor, LOW, HIGH, SUITS, CHOOSE, pts)
    return expected, stuck, after_next


@njit(cache=True)
def _possible(known, lacks, LOW, HIGH):
    """The tiles outside ``known`` that hold none of the ``lacks`` suits (bit masks), and how many."""
    mask, size = 0, 0
    for t in range(28):
        if (known >> t) & 1 or (lacks >> LOW[t]) & 1 or (lacks >> HIGH[t]) & 1:
            continue
        mask |= 1 << t
        size += 1
    return mask, size


@njit(cache=True)
def _lacks_of(obs, o_lacks, rel):
    lacks = 0
    for suit in range(7):
        if obs[o_lacks + 7 * rel + suit] > 0.5:
            lacks |= 1 << suit
    return lacks


@njit(cache=True)
def _hand_and_seen(row, o_hand, o_played, n):
    """Bit masks of the observer's hand and of every tile it has seen (its hand and the played tiles)."""
    hand, seen = 0, 0
    for t in range(28):
        if row[o_hand + t] > 0.5:
            hand |= 1 << t
            seen |= 1 << t
        for rel in range(n):
            if row[o_played + 28 * rel + t] > 0.5:
                seen |= 1 << t
    return hand, seen


@njit(cache=True)
def _reply_features(obs, mask, off, n, divisor, LOW, HIGH, SUITS, blocks, CHOOSE, exclusions, out):
    o_hand, o_played, o_avail, o_value, o_double, o_counts, o_count, o_lead, o_lacks, o_sizes = (
        off[0], off[1], off[2], off[3], off[4], off[5], off[6], off[7], off[8], off[9])
    B, D = obs.shape
    values = np.empty(4, np.int64)
    weights = np.empty(4, np.int64)
    after_v = np.empty(4, np.int64)
    after_w = np.empty(4, np.int64)
    scratch = np.empty((6, 28), np.int64)
    for b in range(B):
        for i in range(D):
            out[b, i] = obs[b, i]
        for i in range(D, out.shape[1]):
            out[b, i] = 0.0
        hand, known = _hand_and_seen(obs[b], o_hand, o_played, n)
        h1 = int(round(obs[b, o_sizes + 1] * SIZE_SCALE))
        rel2 = 2 % n
        h2 = int(round(obs[b, o_sizes + rel2] * SIZE_SCALE))
        # the next seat's possible tiles (exclusions that leave fewer than its hand size are not believed)
        candidates, total = _possible(known | exclusions[b, 1], _lacks_of(obs[b], o_lacks, 1), LOW, HIGH)
        if total < h1:
            candidates, total = _possible(known, _lacks_of(obs[b], o_lacks, 1), LOW, HIGH)
        if rel2 == 0:
            cand2 = hand  # two players: the observer itself, its tiles known (the placed one is removed below)
        else:
            cand2, size2 = _possible(known | exclusions[b, rel2], _lacks_of(obs[b], o_lacks, rel2), LOW, HIGH)
            if size2 < h2:
                cand2, _ = _possible(known, _lacks_of(obs[b], o_lacks, rel2), LOW, HIGH)
        for s in range(4):
            values[s] = -1
            if obs[b, o_avail + s] > 0.5:
                for v in range(7):
                    if obs[b, o_value + 7 * s + v] > 0.5:
                        values[s] = v
            weights[s] = 2 if obs[b, o_double + s] > 0.5 else (1 if obs[b, o_counts + s] > 0.5 else 0)
        count = int(round(obs[b, o_count] * MAX_COUNT))
        lead = obs[b, o_lead] > 0.5
        for a in range(DRAW):
            if mask[b, a] == 0:
                continue
            t, slot = tile_of(a), slot_of(a)
            lo, hi = LOW[t], HIGH[t]
            if lead:  # R8: the lower half W, the higher E; a double lead is a lone spinner
                after_v[0], after_v[1], after_v[2], after_v[3] = lo, hi, -1, -1
                if lo == hi:
                    after_w[0], after_w[1] = 2, 0
                else:
                    after_w[0], after_w[1] = 1, 1
                after_w[2], after_w[3] = 0, 0
                count1 = lo + hi
            else:
                count1 = _place(values, weights, count, slot, lo, hi, after_v, after_w)
                if count1 < 0:
                    continue
            fitting = _fitting(after_v, SUITS)
            if blocks >= 3:
                rest = hand & ~(1 << t) & fitting
                kept = 0
                while rest:
                    rest &= rest - 1
                    kept += 1
                out[b, D + 2 * DRAW + a] = kept / 7.0
            if blocks >= 6:
                own = rel2 == 0
                next_points, stuck, after_next = _lookahead(
                    after_v, after_w, count1, candidates, total, h1, cand2 & ~(1 << t),
                    h2 - 1 if own else h2, divisor, LOW, HIGH, SUITS, CHOOSE, scratch)
                out[b, D + 3 * DRAW + a] = next_points / MAX_POINTS
                out[b, D + 4 * DRAW + a] = stuck
                out[b, D + 5 * DRAW + a] = after_next / MAX_POINTS
            if total == 0:
                continue
            best, scoring = 0, 0
            scorers = candidates & fitting
            for u in range(28):
                if not (scorers >> u) & 1:
                    continue
                got = _tile_points(after_v, after_w, count1, u, divisor, LOW, HIGH)
                if got:
                    scoring += 1
                    if got > best:
                        best = got
            out[b, D + a] = best / MAX_POINTS
            out[b, D + DRAW + a] = scoring / total
