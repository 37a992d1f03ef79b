"""The determinized search of :mod:`allfives_env.agents.search`, compiled over the batched state.

:func:`search_values` gives, for the seat to move in game ``b`` of a
:class:`~allfives_env.vector.VectorAllFives`' arrays, the value of every legal
placement exactly as :meth:`SearchAgent.action_values` defines it:

* ``samples`` hidden states are drawn from what the seat knows (its hand, the
  table, every hand size, the suits each seat is known to lack): the unseen
  tiles are dealt at random to the other hands (their sizes) and the boneyard,
  rejecting deals that give a seat a tile of a suit it lacks (so the draw is
  uniform over the consistent deals, as in ``sample_world``); when rejection
  keeps failing, a sequential draw (most constrained seat first) takes over;
* in each such world every legal action is tried (common random numbers) and
  the hand is played out with the greedy policy for every seat;
* an action's value is its side's points minus the mean of the other sides'
  over that stretch (hand bonus included), plus ``win_value`` when the game
  is won (minus it when lost), averaged over the worlds; then
  ``prior_weight`` times the heuristic agent's value of the placement
  (:func:`allfives_env.agents.heuristic.score_placements`, capped at 1000) is
  added.

It runs on the numba kernels of the batched environment (its speed against
the Python search: ``benchmarks/search_speed.py``).
Tests compare the greedy policy, the rollouts and the heuristic prior with
the Python agents on the same positions, and the sampled worlds with the
information rules.
"""

import numpy as np
from numba import njit

from ..compiled.rng import rand_below
from ..compiled.rules import (
    apply_action,
    bit_index,
    count_after,
    fitting_tiles,
    forced_action,
    layout_count,
    legal_placements,
    mask_pips,
    place,
    points_for_count,
    popcount,
    round5,
    side_of,
    slot_of,
    slot_tiles,
    tile_of,
)
from ..compiled.state import (
    ALL_TILES,
    ARM,
    BONE_POS,
    BRANCHES_OPEN,
    C_DIVISOR,
    C_N,
    C_SIDES,
    COUNT,
    DRAW,
    DRAWN,
    F_TARGET,
    GAME_OVER,
    HAND_OVER,
    HIGH,
    LACKS,
    LEAD_TILE,
    LEADER,
    LOW,
    MUST_PLAY,
    NEXT_LEADER,
    NUM_FIELDS,
    OPEN,
    OPTS,
    ORDER,
    PLAYED_MASK,
    SPINNER_SLOT,
    SPINNER_TILE,
    SUIT_TILES,
    TO_MOVE,
    WEIGHT,
    WINNERS,
    kernel_config,
)
from ..env.encoders import default_layout
from .greedy import greedy_key, greedy_move
from .heuristic import HeuristicAgent
from .inference import view_exclusions

PIPS = np.array([int(LOW[t] + HIGH[t]) for t in range(28)], np.int64)
#: Scratch rows a search needs: the sampled world and the game an action is tried in.
WORLD, TRIAL = 0, 1
#: How the rollouts play every seat: greedy (the default) or the heuristic agent.
ROLLOUTS = ("greedy", "heuristic")
GREEDY_ROLLOUT, HEURISTIC_ROLLOUT = 0, 1
#: The heuristic agent's default weights, in the order heuristic_values reads them (heuristic.WEIGHT_NAMES).
HEURISTIC_WEIGHTS = HeuristicAgent().weight_array()



@njit(**OPTS)
def copy_game(st, hands, scores, b, st2, hands2, scores2, b2):
    """Row ``b`` of the state arrays into row ``b2`` of the second set."""
    for c in range(st.shape[1]):
        st2[b2, c] = st[b, c]
    for c in range(hands.shape[1]):
        hands2[b2, c] = hands[b, c]
    for c in range(scores.shape[1]):
        scores2[b2, c] = scores[b, c]


@njit(**OPTS)
def rollout_value(st, b, hands, scores, gains, cfg, target, side, before, win_value):
    """Play the hand of row ``b`` out with greedy for every seat; the side's points minus the
    other sides' mean since ``before``, plus or minus ``win_value`` if the game ended."""
    divisor = cfg[C_DIVISOR]
    while not st[b, HAND_OVER]:
        apply_action(st, b, hands, scores, gains, cfg, target, greedy_move(st, b, hands, divisor))
    return outcome_value(st, b, scores, cfg[C_SIDES], side, before, win_value)


@njit(**OPTS)
def heuristic_rollout_value(st, b, hands, scores, gains, cfg, target, side, before, win_value, weights, legal, values,
                            lst, lhands, lscores, replies):
    """:func:`rollout_value` with every seat playing the heuristic agent (:func:`heuristic_move`;
    ``legal``/``values``, row 0 of ``lst``/``lhands``/``lscores`` and ``replies`` are its scratch)."""
    while not st[b, HAND_OVER]:
        action = heuristic_move(st, b, hands, scores, cfg, target, weights, legal, values, lst, lhands, lscores,
                                replies)
        apply_action(st, b, hands, scores, gains, cfg, target, action)
    return outcome_value(st, b, scores, cfg[C_SIDES], side, before, win_value)


@njit(**OPTS)
def heuristic_move(st, b, hands, scores, cfg, target, weights, legal, values, lst, lhands, lscores, replies):
    """:meth:`HeuristicAgent.act` for the seat to move in game ``b`` (``weights`` as
    :data:`HEURISTIC_WEIGHTS`): the placement of highest heuristic value, ties to greedy's order;
    a forced draw or pass as it is. ``legal``/``values`` (112), row 0 of ``lst``/``lhands``/``lscores``
    and ``replies`` (28) are scratch."""
    forced = forced_action(st, b, hands)
    if forced >= 0:
        return forced
    n_legal = legal_placements(st, b, hands, legal)
    if n_legal == 1:
        return legal[0]
    heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, lst, lhands, lscores, 0,
                     replies, values)
    best = 0
    for k in range(1, n_legal):
        if values[k] > values[best] or (values[k] == values[best] and
                                        greedy_key(0, legal[k]) > greedy_key(0, legal[best])):  # the tie rank
            best = k
    return legal[best]


@njit(**OPTS)
def zero_sum_points(scores, b, sides, side, before):
    """The points ``side`` gained in game ``b`` since ``before`` minus the other sides' mean gain."""
    mine, others = 0.0, 0.0
    for s in range(sides):
        gained = scores[b, s] - before[s]
        if s == side:
            mine = gained
        else:
            others += gained
    return mine - others / (sides - 1)


@njit(**OPTS)
def outcome_value(st, b, scores, sides, side, before, win_value):
    """A finished rollout's value for ``side``: its points minus the other sides' mean since
    ``before``, plus ``win_value`` if the game ended won (minus it if lost)."""
    value = zero_sum_points(scores, b, sides, side, before)
    if st[b, GAME_OVER]:
        value += win_value if (st[b, WINNERS] >> side) & 1 else -win_value
    return value


@njit(**OPTS)
def _unseen(b, hands, seat, n):
    """Tiles the seat has not seen: not in its hand, not on the table."""
    known = hands[b, seat]
    for s in range(n):
        known |= hands[b, PLAYED_MASK + s]
    return ALL_TILES & ~known


@njit(**OPTS)
def _allowed(st, b, other, unseen):
    """Unseen tiles ``other`` may hold: none of a suit it is known to lack."""
    lacks = st[b, LACKS + other]
    lacked = 0
    for suit in range(7):
        if (lacks >> suit) & 1:
            lacked |= SUIT_TILES[suit]
    return unseen & ~lacked


@njit(**OPTS)
def _random_bit(mask, count, rng, slot):
    """One of the ``count`` set bits of ``mask``, drawn uniformly (as a one-bit mask)."""
    bits = mask
    for _ in range(rand_below(rng, slot, count)):
        bits &= bits - 1
    return bits & -bits


@njit(**OPTS)
def _pick(mask, k, rng, slot):
    """``k`` tiles drawn uniformly without replacement from ``mask`` (as a mask), or -1 if too few."""
    count = popcount(mask)
    if count < k:
        return -1
    chosen = 0
    for _ in range(k):
        low = _random_bit(mask, count, rng, slot)
        chosen |= low
        mask ^= low
        count -= 1
    return chosen


@njit(**OPTS)
def deal_hidden(st, hands, b, seat, n, wst, whands, w, rng, slot, tiles, attempts, forbid):
    """Row ``w`` of ``wst``/``whands`` (already a copy of game ``b``): the hidden tiles redrawn as
    ``seat`` sees them. ``forbid[s]`` (a tile mask per seat; zeros for none) holds tiles seat ``s``
    is inferred not to hold (:func:`~allfives_env.agents.inference.greedy_exclusions`), kept out of its hand
    like a lacking suit.
    ``tiles`` is scratch (28). Returns 0 (rejection sampling: exactly uniform over the consistent
    deals), 1 (the sequential fallback: consistent, near uniform) or 2 (neither found a deal in
    time: the true hidden state is kept)."""
    unseen = _unseen(b, hands, seat, n)
    m = 0
    bits = unseen
    while bits:
        low = bits & -bits
        bits ^= low
        tiles[m] = bit_index(low)
        m += 1
    bone_pos = st[b, BONE_POS]
    for attempt in range(attempts):
        for i in range(m - 1, 0, -1):  # Fisher-Yates over the unseen tiles
            j = rand_below(rng, slot, i + 1)
            t = tiles[j]
            tiles[j] = tiles[i]
            tiles[i] = t
        pos, ok = 0, True
        for other in range(n):
            if other == seat:
                continue
            size = popcount(hands[b, other])
            allowed = _allowed(st, b, other, unseen) & ~forbid[other]
            hand = 0
            for i in range(pos, pos + size):
                if not (allowed >> tiles[i]) & 1:
                    ok = False
                    break
                hand |= 1 << tiles[i]
            if not ok:
                break
            whands[w, other] = hand
            pos += size
        if ok:
            for i in range(pos, m):  # the rest is the boneyard, in this random order
                wst[w, ORDER + bone_pos + i - pos] = tiles[i]
            return 0
    for attempt in range(attempts):  # sequential: the seat with the least slack first
        left = unseen
        ok = True
        done = 0
        for _ in range(n - 1):
            pick_seat, slack = -1, 1 << 30
            for other in range(n):
                if other == seat or (done >> other) & 1:
                    continue
                sl = popcount(_allowed(st, b, other, left) & ~forbid[other]) - popcount(hands[b, other])
                if sl < slack:
                    pick_seat, slack = other, sl
            hand = _pick(_allowed(st, b, pick_seat, left) & ~forbid[pick_seat], popcount(hands[b, pick_seat]), rng,
                         slot)
            if hand < 0:
                ok = False
                break
            whands[w, pick_seat] = hand
            left &= ~hand
            done |= 1 << pick_seat
        if ok:
            i = 0
            while left:
                low = _random_bit(left, popcount(left), rng, slot)
                left ^= low
                wst[w, ORDER + bone_pos + i] = bit_index(low)
                i += 1
            return 1
    for other in range(n):  # pragma: no cover - keep the true deal
        whands[w, other] = hands[b, other]
    return 2


@njit(**OPTS)
def draw_world(st, hands, scores, b, seat, n, wst, whands, wscores, w, rng, slot, tiles, attempts, forbid,
               no_forbid):
    """Row ``w`` := game ``b`` with its hidden tiles redrawn (:func:`deal_hidden`). When the inferred
    exclusions ``forbid`` cannot all hold (the opponents did not play as inferred), the world is
    drawn with ``no_forbid`` (zeros) instead, rather than keep the arrays' own hidden tiles."""
    copy_game(st, hands, scores, b, wst, whands, wscores, w)
    if deal_hidden(st, hands, b, seat, n, wst, whands, w, rng, slot, tiles, attempts, forbid) == 2:
        copy_game(st, hands, scores, b, wst, whands, wscores, w)
        deal_hidden(st, hands, b, seat, n, wst, whands, w, rng, slot, tiles, attempts, no_forbid)


@njit(**OPTS)
def world_from_bank(bst, bhands, bscores, row, wst, whands, wscores, w, rng, slot):
    """Row ``w`` := world ``row`` of a bank of drawn worlds (:mod:`.hand_reading`), its boneyard
    shuffled anew from ``rng[slot]``: copies of one drawn world share its hands, not the order of the
    draws to come."""
    copy_game(bst, bhands, bscores, row, wst, whands, wscores, w)
    lo = wst[w, BONE_POS]
    for i in range(27, lo, -1):  # Fisher-Yates over the boneyard's places
        j = lo + rand_below(rng, slot, i - lo + 1)
        t = wst[w, ORDER + j]
        wst[w, ORDER + j] = wst[w, ORDER + i]
        wst[w, ORDER + i] = t


@njit(**OPTS)
def heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, lst, lhands, lscores, lrow,
                     replies, out):
    """``out[k]``: the heuristic agent's value of placement ``legal[k]`` for the seat to move
    (score_placements; ``weights`` as :data:`HEURISTIC_WEIGHTS`). Row ``lrow`` of
    ``lst``/``lhands``/``lscores`` is scratch for the layout after each placement, ``replies`` (28) too."""
    n = cfg[C_N]
    divisor = cfg[C_DIVISOR]
    seat = st[b, TO_MOVE]
    side = side_of(seat, n)
    nxt = seat + 1 if seat + 1 < n else 0
    unseen = _unseen(b, hands, seat, n)
    candidates = _allowed(st, b, nxt, unseen)
    n_cand = popcount(candidates)
    p_hold = min(1.0, popcount(hands[b, nxt]) / n_cand) if n_cand else 0.0
    late = st[b, BONE_POS] >= 28
    for s in range(n):
        if popcount(hands[b, s]) <= 2:
            late = True
    shed = weights[4] if late else weights[3]
    hand = hands[b, seat]
    # expected opponents' pips (for a domino): unseen mean pips times the opponents' tiles
    n_unseen = popcount(unseen)
    opp_pips = 0.0
    if n_unseen:
        held = 0
        for s in range(n):
            if side_of(s, n) != side:
                held += popcount(hands[b, s])
        opp_pips = held * (mask_pips(unseen) / n_unseen)  # the mean first, as in Python (same rounding)
    for k in range(n_legal):
        action = legal[k]
        tile, slot = tile_of(action), slot_of(action)
        points = points_for_count(count_after(st, b, tile, slot), divisor)
        if scores[b, side] + points >= target:
            out[k] = 1e6 + points
            continue
        value = float(points)
        rest = hand & ~(1 << tile)
        if rest == 0:
            out[k] = value + round5(int(opp_pips)) + 100.0  # round5 of the truncated pips, as in Python
            continue
        copy_game(st, hands, scores, b, lst, lhands, lscores, lrow)
        place(lst, lrow, tile, slot)
        lst[lrow, COUNT] = layout_count(lst, lrow)
        fits = fitting_tiles(lst, lrow)
        m = 0
        bits = candidates & fits  # a tile that fits no open end scores no reply
        while bits:
            low = bits & -bits
            bits ^= low
            t = bit_index(low)
            best = 0
            for s in range(4):
                if (slot_tiles(lst, lrow, s) >> t) & 1:
                    pts = points_for_count(count_after(lst, lrow, t, s), divisor)
                    if pts > best:
                        best = pts
            if best:  # insertion into the descending list
                i = m
                while i > 0 and replies[i - 1] < best:
                    replies[i] = replies[i - 1]
                    i -= 1
                replies[i] = best
                m += 1
        if m:
            expected, miss = 0.0, 1.0
            for i in range(m):
                expected += replies[i] * p_hold * miss
                miss *= 1.0 - p_hold
            value -= weights[0] * expected
        fit_count = popcount(rest & fits)
        value += weights[1] * fit_count
        if fit_count == 0:
            value -= weights[2]
        value += shed * PIPS[tile]
        if LOW[tile] == HIGH[tile]:
            value += weights[5]
        out[k] = value


@njit(**OPTS)
def search_values(st, hands, scores, b, cfg, fcfg, samples, win_value, prior_weight, weights, attempts,
                  rng, rng_slot, wst, whands, wscores, wgains, legal, values, prior, tiles, replies, before, forbid,
                  no_forbid, rollout, rlegal, rvalues, rst, rhands, rscores, rreplies, bst, bhands, bscores, bank_rows):
    """The search's value of each legal placement of the seat to move in game ``b``.

    Writes the placements to ``legal`` and their values to ``values``; returns how many
    (0 when the seat must draw or pass). ``wst``/``whands``/``wscores``/``wgains`` hold
    three scratch rows (the world, a trial, the heuristic's layout); ``rng[rng_slot]``
    is the SplitMix64 stream of the sampling; ``prior`` (112), ``tiles`` (28), ``replies`` (28) and
    ``before`` (sides) are scratch too; ``forbid`` and ``no_forbid`` as in :func:`draw_world`.
    ``rollout``: :data:`GREEDY_ROLLOUT` or :data:`HEURISTIC_ROLLOUT`, whose moves use the
    ``r*`` scratch (as :func:`heuristic_move`'s). With ``bank_rows`` not empty the worlds are
    instead those rows of a bank ``bst``/``bhands``/``bscores`` (:func:`world_from_bank`), one per row,
    and ``samples`` is not read."""
    n_legal = legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    n = cfg[C_N]
    target = fcfg[F_TARGET]
    seat = st[b, TO_MOVE]
    side = side_of(seat, n)
    for k in range(n_legal):
        values[k] = 0.0
    for s in range(scores.shape[1]):
        before[s] = scores[b, s]
    worlds = bank_rows.shape[0] if bank_rows.shape[0] else samples
    for i in range(worlds):
        if bank_rows.shape[0]:
            world_from_bank(bst, bhands, bscores, bank_rows[i], wst, whands, wscores, WORLD, rng, rng_slot)
        else:
            draw_world(st, hands, scores, b, seat, n, wst, whands, wscores, WORLD, rng, rng_slot, tiles, attempts,
                       forbid, no_forbid)
        for k in range(n_legal):
            copy_game(wst, whands, wscores, WORLD, wst, whands, wscores, TRIAL)
            apply_action(wst, TRIAL, whands, wscores, wgains, cfg, target, legal[k])
            if rollout == HEURISTIC_ROLLOUT:
                values[k] += heuristic_rollout_value(wst, TRIAL, whands, wscores, wgains, cfg, target, side, before,
                                                     win_value, weights, rlegal, rvalues, rst, rhands, rscores,
                                                     rreplies)
            else:
                values[k] += rollout_value(wst, TRIAL, whands, wscores, wgains, cfg, target, side, before, win_value)
    for k in range(n_legal):
        values[k] /= worlds
    if prior_weight != 0.0:
        heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, wst, whands, wscores, 2,
                         replies, prior)
        for k in range(n_legal):
            values[k] += prior_weight * min(prior[k], 1e3)
    return n_legal


def empty_bank(num_sides) -> tuple:
    """A bank of no worlds (``bst, bhands, bscores, rows``): each search or trial draws its own."""
    return (np.zeros((0, NUM_FIELDS), np.int8), np.zeros((0, 8), np.int64), np.zeros((0, num_sides), np.float64),
            np.zeros(0, np.int64))


class SearchScratch:
    """The budget, the random stream and the per-decision scratch arrays of a compiled searcher."""

    def __init__(self, num_sides, samples, win_value, prior_weight, seed, attempts, rollout="greedy"):
        from ..vector.batched import make_rng_state

        if rollout not in ROLLOUTS:
            raise ValueError(f"rollout={rollout!r} is not allowed; allowed: {', '.join(map(repr, ROLLOUTS))}")
        self.rollout = ROLLOUTS.index(rollout)
        self.samples, self.win_value, self.prior_weight = int(samples), float(win_value), float(prior_weight)
        self.attempts = int(attempts)
        self.rng = make_rng_state(seed, 1)
        self.num_sides = int(num_sides)
        self.legal = np.zeros(DRAW, np.int64)
        self.out = np.zeros(DRAW, np.float64)
        self.prior = np.zeros(DRAW, np.float64)
        self.tiles = np.zeros(28, np.int64)
        self.replies = np.zeros(28, np.float64)
        self.before = np.zeros(num_sides, np.float64)
        self.no_forbid = np.zeros(4, np.int64)
        self.no_bank = empty_bank(num_sides)
        # the heuristic rollouts' own scratch (the heuristic prior uses row 2 of the world rows)
        self.rlegal = np.zeros(DRAW, np.int64)
        self.rvalues = np.zeros(DRAW, np.float64)
        self.rst = np.zeros((1, NUM_FIELDS), np.int8)
        self.rhands = np.zeros((1, 8), np.int64)
        self.rscores = np.zeros((1, num_sides), np.float64)
        self.rreplies = np.zeros(28, np.float64)


class Searcher(SearchScratch):
    """Scratch buffers and a random stream for :func:`search_values`.

    ``values(st, hands, scores, b, cfg, fcfg)`` -> ``(legal placements, values)`` (new
    numpy arrays) for the seat to move in game ``b`` of a batched environment's arrays;
    :meth:`choose` turns them into the search agent's action."""

    def __init__(self, num_sides, samples=48, win_value=100.0, prior_weight=1.0, seed=0, attempts=50, rollout="greedy"):
        super().__init__(num_sides, samples, win_value, prior_weight, seed, attempts, rollout)
        self.wst = np.zeros((3, NUM_FIELDS), np.int8)
        self.whands = np.zeros((3, 8), np.int64)
        self.wscores = np.zeros((3, num_sides), np.float64)
        self.wgains = np.zeros((3, num_sides), np.float64)

    def values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
        """``forbid``: tiles each seat is inferred not to hold
        (:func:`~allfives_env.agents.inference.greedy_exclusions`); none by default. ``bank``:
        ``(bst, bhands, bscores, rows)``, the worlds to play out instead of drawing ``samples``
        (:class:`~allfives_env.agents.hand_reading.HandReader`)."""
        bst, bhands, bscores, rows = self.no_bank if bank is None else bank
        n = search_values(st, hands, scores, b, cfg, fcfg, self.samples, self.win_value, self.prior_weight,
                          HEURISTIC_WEIGHTS, self.attempts, self.rng, 0, self.wst, self.whands, self.wscores,
                          self.wgains, self.legal, self.out, self.prior, self.tiles, self.replies, self.before,
                          self.no_forbid if forbid is None else forbid, self.no_forbid, self.rollout, self.rlegal,
                          self.rvalues, self.rst, self.rhands, self.rscores, self.rreplies, bst, bhands, bscores,
                          rows)
        return self.legal[:n].copy(), self.out[:n].copy()


def load_view(view, st, hands, scores, b=0):
    """Row ``b`` of the state arrays := what ``view`` (a PlayerView of the seat to move) knows.

    The layout, scores, hand sizes, lacks, played tiles and the own hand are
    copied; the other hands get placeholder tiles of the right sizes and the
    boneyard is left unset, both redrawn by :func:`deal_hidden` before any use.
    So a search from these arrays reads nothing the view does not show."""
    st[b, :] = 0
    hands[b, :] = 0
    st[b, TO_MOVE] = view.to_move
    st[b, LEADER] = view.leader
    st[b, LEAD_TILE] = view.lead_tile
    st[b, SPINNER_TILE] = view.spinner_tile
    st[b, SPINNER_SLOT] = view.spinner_slot
    st[b, BRANCHES_OPEN] = int(view.branches_open)
    st[b, BONE_POS] = 28 - view.boneyard_left
    st[b, MUST_PLAY] = view.must_play
    st[b, DRAWN] = view.drawn_this_turn
    st[b, NEXT_LEADER] = -1
    st[b, COUNT] = view.count
    for slot in range(4):
        st[b, OPEN + slot] = view.open_value[slot]
        st[b, WEIGHT + slot] = view.weight[slot]
        st[b, ARM + slot] = view.arm_length[slot]
    for seat in range(view.num_players):
        st[b, LACKS + seat] = view.lacks[seat]
    for tile, who in enumerate(view.played_by):
        if who >= 0:
            hands[b, PLAYED_MASK + who] |= 1 << tile
    placeholder = view.unseen
    for seat in range(view.num_players):
        if seat == view.seat:
            hands[b, seat] = view.hand
            continue
        mask = 0
        for _ in range(view.hand_sizes[seat]):
            low = placeholder & -placeholder
            placeholder ^= low
            mask |= low
        hands[b, seat] = mask
    scores[b, :] = view.scores


class CompiledSearch:
    """:meth:`SearchAgent.action_values` on the compiled search (``search:engine=compiled``)."""

    def __init__(self, config, samples, win_value, prior_weight, rng, infer=False, rollout="greedy"):
        self.cfg, self.fcfg, self.off = kernel_config(config, default_layout(config.num_players), "game", "points",
                                                      False)
        self.searcher = Searcher(config.num_sides, samples=samples, win_value=win_value, prior_weight=prior_weight,
                                 seed=int(rng.integers(2 ** 62)), rollout=rollout)
        self.infer = bool(infer)
        self.forbid = np.zeros(4, np.int64)
        self.st = np.zeros((1, NUM_FIELDS), np.int8)
        self.hands = np.zeros((1, 8), np.int64)
        self.scores = np.zeros((1, config.num_sides), np.float64)

    def action_values(self, view, legal_actions, bank=None) -> list:
        """``bank``: as :meth:`Searcher.values`."""
        load_view(view, self.st, self.hands, self.scores)
        if self.infer:
            view_exclusions(view, self.forbid)
        legal, values = self.searcher.values(self.st, self.hands, self.scores, 0, self.cfg, self.fcfg, self.forbid,
                                             bank)
        by_action = dict(zip(legal.tolist(), values.tolist()))
        return [by_action[a] for a in legal_actions]
