"""Extra policy inputs computed from the default observation (and the mask).

A policy's input is the :class:`~allfives_env.encoders.DefaultEncoder` vector,
optionally followed by derived features; which ones is stored in the policy
record (``"features"``), so training, ``ppo:PATH`` and the evaluation all build
the same input. Derived features add no information (the observation already
holds it) and read nothing hidden; they spare the network a computation it
learns slowly:

``"reply"`` (2 x 112 values after the observation): for each legal placement
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
``"reply_control"`` (3 x 112): ``"reply"``, then

* ``control``: how many of the seat's other tiles (/7) still fit the layout
  after this placement (the same layout model): suit control, fewer forced
  draws and passes next turn.

Zero for draws, passes and illegal actions. Each feature set extends the one
before it, so a policy trained on a shorter set warm-starts on a longer one
(``init_from``; the new inputs start at zero weight).
"""

import numpy as np
from numba import njit

from ..encoders import default_layout
from ..rules.actions import DRAW
from ..rules.tiles import SUIT_TILES, TILE_HIGH, TILE_LOW

FEATURES = ("none", "reply", "reply_control")
_BLOCKS = {"none": 0, "reply": 2, "reply_control": 3}  # blocks of 112 values after the observation
_LOW = np.array(TILE_LOW, np.int64)
_HIGH = np.array(TILE_HIGH, np.int64)
_SUIT_TILES = np.array(SUIT_TILES, np.int64)  # tiles carrying each suit (bit mask)


def feature_size(name: str) -> int:
    """How many values ``name`` appends to the observation."""
    if name not in FEATURES:
        raise ValueError(f"features={name!r} is not allowed; allowed: {list(FEATURES)}")
    return _BLOCKS[name] * DRAW


def extends(longer: str, shorter: str) -> bool:
    """Whether the input of ``longer`` starts with the whole input of ``shorter``."""
    return FEATURES.index(longer) >= FEATURES.index(shorter)


class PolicyInput:
    """Builds the network input ``(B, obs_dim + extra)`` from observations and masks."""

    def __init__(self, features: str, num_players: int, divisor: int):
        self.features = features
        self.extra = feature_size(features)
        layout = default_layout(num_players)
        self.obs_dim = layout.size
        self.size = self.obs_dim + self.extra
        self._num_players, self._divisor = int(num_players), int(divisor)
        names = ("hand", "played_by", "slot_available", "slot_value", "slot_double_end", "slot_counts",
                 "count", "is_lead", "lacks")
        self._off = np.array([layout.offset(name) for name in names], np.int64)

    def __call__(self, obs: np.ndarray, mask: np.ndarray, out: np.ndarray = None) -> np.ndarray:
        """``obs`` (B, obs_dim) float32 and ``mask`` (B, 114) -> the input (a view of ``obs`` when no features)."""
        if self.extra == 0:
            return obs
        if out is None:
            out = np.empty((obs.shape[0], self.size), np.float32)
        _reply_features(obs, mask, self._off, self._num_players, self._divisor, _LOW, _HIGH, _SUIT_TILES,
                        _BLOCKS[self.features] >= 3, out)
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
def _reply_features(obs, mask, off, n, divisor, LOW, HIGH, SUITS, control, out):
    o_hand, o_played, o_avail, o_value, o_double, o_counts, o_count, o_lead, o_lacks = (
        off[0], off[1], off[2], off[3], off[4], off[5], off[6], off[7], off[8])
    B, D = obs.shape
    values = np.empty(4, np.int64)
    weights = np.empty(4, np.int64)
    after_v = np.empty(4, np.int64)
    after_w = np.empty(4, np.int64)
    for b in range(B):
        for i in range(D):
            out[b, i] = obs[b, i]
        for i in range(D, out.shape[1]):
            out[b, i] = 0.0
        known = 0
        hand = 0
        for t in range(28):
            if obs[b, o_hand + t] > 0.5:
                known |= 1 << t
                hand |= 1 << t
            for rel in range(n):
                if obs[b, o_played + 28 * rel + t] > 0.5:
                    known |= 1 << t
        lacks_next = 0
        for suit in range(7):
            if obs[b, o_lacks + 7 + suit] > 0.5:  # relative seat 1: the next seat
                lacks_next |= 1 << suit
        candidates = 0
        total = 0
        for t in range(28):
            if (known >> t) & 1 or (lacks_next >> LOW[t]) & 1 or (lacks_next >> HIGH[t]) & 1:
                continue
            candidates |= 1 << t
            total += 1
        for s in range(4):
            values[s] = -1
            if obs[b, o_avail + s] > 0.5:
                for v in range(7):
                    if obs[b, o_value + 7 * s + v] > 0.5:
                        values[s] = v
            weights[s] = 2 if obs[b, o_double + s] > 0.5 else (1 if obs[b, o_counts + s] > 0.5 else 0)
        count = int(round(obs[b, o_count] * 36.0))
        lead = obs[b, o_lead] > 0.5
        for a in range(DRAW):
            if mask[b, a] == 0:
                continue
            t, slot = a >> 2, a & 3
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
                for s in range(4):
                    after_v[s], after_w[s] = values[s], weights[s]
                count1, end, weight = _count_after(values, weights, count, slot, lo, hi)
                if count1 < 0:
                    continue
                after_v[slot], after_w[slot] = end, weight
                if slot < 2 and weights[1 - slot] == 0 and values[1 - slot] >= 0:
                    after_w[1 - slot] = 2
            if control:
                fitting = 0
                for s2 in range(4):
                    if after_v[s2] >= 0:
                        fitting |= SUITS[after_v[s2]]
                rest = hand & ~(1 << t) & fitting
                kept = 0
                while rest:
                    rest &= rest - 1
                    kept += 1
                out[b, D + 2 * DRAW + a] = kept / 7.0
            if total == 0:
                continue
            best, scoring = 0, 0
            for u in range(28):
                if not (candidates >> u) & 1:
                    continue
                got = 0
                for s2 in range(4):
                    c, _, _ = _count_after(after_v, after_w, count1, s2, LOW[u], HIGH[u])
                    if c > 0 and c % divisor == 0 and c > got:
                        got = c
                if got:
                    scoring += 1
                    if got > best:
                        best = got
            out[b, D + a] = best / 35.0
            out[b, D + DRAW + a] = scoring / total
