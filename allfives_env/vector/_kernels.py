"""Numba kernels of the batched environment: the rules of game.py, the default
encoder of encoders.py and a per-game random generator, over arrays.

Every function here mirrors one method of :class:`allfives_env.rules.game.Game`
(or of :class:`allfives_env.encoders.DefaultEncoder`) and names the rule ids it
implements; the pure-Python engine stays the readable reference and
``tests/vector/test_vector_differential.py`` checks both agree step by step.

State of game ``b`` (structure of arrays, one row per game; every function
takes the arrays and the game index ``b``, never a row view):

* ``st[b]`` (int8, :data:`NUM_FIELDS` columns): the small fields below, then
  the deal order (28 tiles: the hands as dealt, then the boneyard in draw
  order; ``BONE_POS`` points at the next tile to draw).
* ``hands[b, seat]`` (int64, 8 columns): each seat's hand as a bit mask over
  tile indices (R1) in columns 0-3, the tiles each seat played this hand in
  columns ``PLAYED_MASK + seat`` (Game.played_by as masks).
* ``scores[b, side]`` and ``hand_start[b, side]`` (float64; R24 half points).
* ``rng[b]`` (uint64): the game's SplitMix64 counter.

Config is passed as arrays so one compiled signature serves every variant:
``cfg`` (int64, ``C_*`` indices), ``fcfg`` (float64, ``F_*``) and ``off``
(int64, the encoder offsets in :data:`OBS_PARTS` order).

The kernels are compiled without numba's reference counting (see ``OPTS``):
call only the entry points (``step_all_*``, ``reset_all``, ``set_deal``,
``seed_streams``, ``random_legal_actions``) from Python, or any kernel from
another jitted function.
"""

import numpy as np
from numba import njit, prange

from ..rules.tiles import SUIT_TILES as _SUIT_TILES
from ..rules.tiles import TILE_HIGH as _TILE_HIGH
from ..rules.tiles import TILE_LOW as _TILE_LOW
from ..rules.tiles import TILE_SUITS as _TILE_SUITS

# --------------------------------------------------------------- constants
LOW = np.array(_TILE_LOW, np.int64)
HIGH = np.array(_TILE_HIGH, np.int64)
SUIT_TILES = np.array(_SUIT_TILES, np.int64)  # tiles carrying each suit (bit mask)
TILE_SUITS = np.array(_TILE_SUITS, np.int64)  # suits each tile carries (bit mask)
# V3 heaviness as one sortable number: pips, then the double, then the higher half.
HEAVINESS = np.array([100 * (a + b) + 10 * (a == b) + b for a, b in zip(_TILE_LOW, _TILE_HIGH)], np.int64)
# de Bruijn table: index of an isolated bit below 2**32.
_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], np.int64)

DRAW, PASS, NUM_ACTIONS = 112, 113, 114
CENTER = -1  # spinner_slot when the spinner is the lead itself

# columns of st[b]
TO_MOVE, LEADER, LEAD_TILE, SPINNER_TILE, SPINNER_SLOT, BRANCHES_OPEN = 0, 1, 2, 3, 4, 5
BONE_POS, MUST_PLAY, DRAWN, HAND_OVER, GAME_OVER, NEXT_LEADER = 6, 7, 8, 9, 10, 11
COUNT, WINNERS = 12, 13  # WINNERS: bit mask over sides
OPEN, WEIGHT, ARM, LACKS = 16, 20, 24, 28  # 4 columns each (slots W E N S; LACKS per seat)
ORDER = 32  # 28 columns: the deal order (hands, then boneyard)
NUM_FIELDS = 64
PLAYED_MASK = 4  # hands[b, PLAYED_MASK + seat]: tiles the seat played this hand

# cfg indices
C_N, C_SIDES, C_HAND_SIZE, C_DIVISOR, C_SCORING, C_FIRST_LEADER = 0, 1, 2, 3, 4, 5
C_EPISODE, C_REWARD, C_AUTO_FORCED = 6, 7, 8
NUM_CFG = 9
SCORING_BONUS, SCORING_NET, SCORING_PENALTY = 0, 1, 2
EPISODE_GAME, EPISODE_HAND = 0, 1
REWARD_POINTS, REWARD_ZERO_SUM, REWARD_WIN = 0, 1, 2
# fcfg indices
F_TARGET, F_SCORE_NORM, F_BONE_NORM = 0, 1, 2

#: The parts of the default observation, in encoders.default_layout order.
OBS_PARTS = ("hand", "played_by", "slot_available", "slot_value", "slot_double_end", "slot_counts",
             "spinner_state", "spinner_value", "count", "is_lead", "boneyard", "hand_sizes",
             "same_side", "scores", "lacks", "forced", "drawn_this_turn", "to_move", "leader",
             "placement_points")
(O_HAND, O_PLAYED_BY, O_SLOT_AVAILABLE, O_SLOT_VALUE, O_SLOT_DOUBLE_END, O_SLOT_COUNTS,
 O_SPINNER_STATE, O_SPINNER_VALUE, O_COUNT, O_IS_LEAD, O_BONEYARD, O_HAND_SIZES, O_SAME_SIDE,
 O_SCORES, O_LACKS, O_FORCED, O_DRAWN, O_TO_MOVE, O_LEADER, O_PLACEMENT) = range(20)

_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_MIX1 = _U(0xBF58476D1CE4E5B9)
_MIX2 = _U(0x94D049BB133111EB)
_S27, _S30, _S31, _S32 = _U(27), _U(30), _U(31), _U(32)

# No kernel allocates, returns or keeps an array: they only index the arrays
# they are given. So they are compiled without numba's reference counting
# (``_nrt=False``); with it, every call paid an atomic incref/decref per array
# argument, which dominated the step time (and made threads contend).
try:  # ``_nrt`` is a numba compiler option without a public spelling; keep working without it
    from numba.core.cpu import CPUTargetOptions
    _NO_REFCOUNT = {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}
except ImportError:  # pragma: no cover
    _NO_REFCOUNT = {}
OPTS = dict(cache=True, nogil=True, **_NO_REFCOUNT)
ENTRY = OPTS


# ------------------------------------------------------------------ random
@njit(**OPTS)
def mix64(z):
    """SplitMix64 output function (a bijection of uint64)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(**OPTS)
def next_u64(rng, b):
    """Next output of game ``b``'s SplitMix64 stream."""
    z = rng[b] + _GOLDEN
    rng[b] = z
    return mix64(z)


@njit(**OPTS)
def rand_below(rng, b, bound):
    """An integer in ``[0, bound)`` (multiply-shift; bias below bound / 2**32)."""
    return np.int64(((next_u64(rng, b) >> _S32) * _U(bound)) >> _S32)


@njit(**ENTRY)
def seed_streams(rng, base):
    """Independent streams: game ``b`` starts from mix64(base ^ mix64(b + 1))."""
    for b in range(rng.shape[0]):
        rng[b] = mix64(base ^ mix64(_U(b + 1)))


# ------------------------------------------------------------------ helpers
@njit(**OPTS)
def popcount(x):
    x = x - ((x >> 1) & 0x55555555)
    x = (x & 0x33333333) + ((x >> 2) & 0x33333333)
    x = (x + (x >> 4)) & 0x0F0F0F0F
    return ((x * 0x01010101) & 0xFFFFFFFF) >> 24


@njit(**OPTS)
def bit_index(low):
    """Index of the single set bit of ``low`` (below 2**32)."""
    return _DEBRUIJN[((low * 0x077CB531) & 0xFFFFFFFF) >> 27]


@njit(**OPTS)
def side_of(seat, n):
    """R2: partners 0+2 and 1+3 with 4 players, else each seat its own side."""
    return seat % 2 if n == 4 else seat


@njit(**OPTS)
def mask_pips(hand):
    total = 0
    for t in range(28):
        if (hand >> t) & 1:
            total += LOW[t] + HIGH[t]
    return total


@njit(**OPTS)
def round5(x):
    """R20: nearest multiple of 5, remainders 1-2 down, 3-4 up (x >= 0 here)."""
    r = x % 5
    return x - r + (5 if r >= 3 else 0)


@njit(**OPTS)
def points_for_count(count, divisor):
    """R15/V5: a positive multiple of the divisor scores the count."""
    return count if count > 0 and count % divisor == 0 else 0


@njit(**OPTS)
def open_suits(st, b):
    """Bit mask of the values open at an available slot."""
    suits = 0
    for slot in range(4):
        v = st[b, OPEN + slot]
        if v >= 0:
            suits |= 1 << v
    return suits


@njit(**OPTS)
def fitting_tiles(st, b):
    """Tiles that fit some available slot now (bit mask)."""
    fits = 0
    for slot in range(4):
        v = st[b, OPEN + slot]
        if v >= 0:
            fits |= SUIT_TILES[v]
    return fits


@njit(**OPTS)
def layout_count(st, b):
    """R14: sum of open value x weight over the four slots."""
    total = 0
    for slot in range(4):
        total += st[b, OPEN + slot] * st[b, WEIGHT + slot]
    return total


@njit(**OPTS)
def count_after(st, b, tile, slot):
    """Game.count_after: the count after placing ``tile`` at ``slot`` (R14)."""
    low, high = LOW[tile], HIGH[tile]
    if st[b, LEAD_TILE] < 0:
        return 2 * low if low == high else low + high
    value = st[b, OPEN + slot]
    new_end = high if low == value else low
    count = st[b, COUNT] - value * st[b, WEIGHT + slot] + new_end * (2 if low == high else 1)
    if st[b, SPINNER_SLOT] == CENTER and st[b, SPINNER_TILE] >= 0 and st[b, BRANCHES_OPEN] == 0:
        other = 1 - slot
        if st[b, ARM + other] == 0:  # the lone double lead becomes a spinner at an end
            count += (2 - st[b, WEIGHT + other]) * st[b, OPEN + other]
    return count


# ------------------------------------------------------------------ deals
@njit(**OPTS)
def draw_leader(st, b, rng, n, first_leader):
    """R5 (uniform seat) or V3 heaviest_tile (n tiles drawn, the heaviest leads)."""
    if first_leader == 0:
        return rand_below(rng, b, n)
    for t in range(28):  # the deal order area is scratch space until the deal
        st[b, ORDER + t] = t
    best, best_key = 0, -1
    for seat in range(n):
        j = seat + rand_below(rng, b, 28 - seat)
        tile = st[b, ORDER + j]
        st[b, ORDER + j] = st[b, ORDER + seat]
        st[b, ORDER + seat] = tile
        if HEAVINESS[tile] > best_key:
            best, best_key = seat, HEAVINESS[tile]
    return best


@njit(**OPTS)
def start_hand(st, b, hands, scores, hstart, leader, n, hand_size):
    """Game._deal after the order is in st[b, ORDER:]: hands, empty layout (R4, R8)."""
    for col in range(8):
        hands[b, col] = 0
    for seat in range(n):
        mask = 0
        for i in range(hand_size):
            mask |= 1 << st[b, ORDER + seat * hand_size + i]
        hands[b, seat] = mask
    st[b, BONE_POS] = n * hand_size
    st[b, LEADER] = leader
    st[b, TO_MOVE] = leader
    st[b, HAND_OVER] = 0
    st[b, NEXT_LEADER] = -1
    st[b, LEAD_TILE] = -1
    st[b, SPINNER_TILE] = -1
    st[b, SPINNER_SLOT] = CENTER
    st[b, BRANCHES_OPEN] = 0
    for slot in range(4):
        st[b, OPEN + slot] = -1
        st[b, WEIGHT + slot] = 0
        st[b, ARM + slot] = 0
        st[b, LACKS + slot] = 0
    st[b, COUNT] = 0
    st[b, MUST_PLAY] = -1
    st[b, DRAWN] = 0
    for side in range(scores.shape[1]):
        hstart[b, side] = scores[b, side]


@njit(**OPTS)
def deal_random(st, b, hands, scores, hstart, rng, cfg):
    """Game.start_next_hand (or the deal of start_game): R19 leader, R4 shuffle."""
    n = cfg[C_N]
    leader = st[b, NEXT_LEADER]
    if leader < 0:
        leader = draw_leader(st, b, rng, n, cfg[C_FIRST_LEADER])
    for t in range(28):
        st[b, ORDER + t] = t
    for i in range(27, 0, -1):  # Fisher-Yates
        j = rand_below(rng, b, i + 1)
        tile = st[b, ORDER + j]
        st[b, ORDER + j] = st[b, ORDER + i]
        st[b, ORDER + i] = tile
    start_hand(st, b, hands, scores, hstart, leader, n, cfg[C_HAND_SIZE])


@njit(**OPTS)
def new_game(st, b, hands, scores, hstart, rng, cfg):
    """Game.start_game with a random deal: zero scores, R5/V3 leader."""
    for side in range(scores.shape[1]):
        scores[b, side] = 0.0
    st[b, GAME_OVER] = 0
    st[b, WINNERS] = 0
    st[b, NEXT_LEADER] = -1
    deal_random(st, b, hands, scores, hstart, rng, cfg)


# ------------------------------------------------------------- transitions
@njit(**OPTS)
def open_branches(st, b):
    """R11: both straight sides occupied; N and S open with the spinner's value, counting 0."""
    st[b, BRANCHES_OPEN] = 1
    value = LOW[st[b, SPINNER_TILE]]
    st[b, OPEN + 2] = value
    st[b, OPEN + 3] = value
    st[b, WEIGHT + 2] = 0
    st[b, WEIGHT + 3] = 0


@njit(**OPTS)
def cover_spinner_side(st, b, slot):
    """Game._cover_spinner_side: a tile attached while a straight side is free (R10, R11)."""
    if st[b, SPINNER_SLOT] == CENTER:
        other = 1 - slot
        if st[b, ARM + other] == 0:
            st[b, WEIGHT + other] = 2  # the lone double lead is now a spinner at an end (R14)
        else:
            open_branches(st, b)
    elif st[b, SPINNER_SLOT] == slot:
        open_branches(st, b)  # R10: tile attached beyond an arm's spinner


@njit(**OPTS)
def place(st, b, tile, slot):
    """Game._place: the lead (R6, R8) or an attachment (R7, R9, R10)."""
    low, high = LOW[tile], HIGH[tile]
    if st[b, LEAD_TILE] < 0:
        st[b, LEAD_TILE] = tile
        if low == high:  # R8/R10: a double lead is the spinner, counted once while alone
            st[b, OPEN] = low
            st[b, OPEN + 1] = low
            st[b, WEIGHT] = 2
            st[b, WEIGHT + 1] = 0
            st[b, SPINNER_TILE] = tile
            st[b, SPINNER_SLOT] = CENTER
        else:  # R8: lower half opens W, higher half E
            st[b, OPEN] = low
            st[b, OPEN + 1] = high
            st[b, WEIGHT] = 1
            st[b, WEIGHT + 1] = 1
        return
    value = st[b, OPEN + slot]
    if st[b, SPINNER_TILE] >= 0 and st[b, BRANCHES_OPEN] == 0:
        cover_spinner_side(st, b, slot)
    st[b, OPEN + slot] = high if low == value else low
    st[b, WEIGHT + slot] = 2 if low == high else 1  # R9: a double at the end counts twice
    st[b, ARM + slot] += 1
    if low == high and st[b, SPINNER_TILE] < 0:  # R10: the first double is the spinner
        st[b, SPINNER_TILE] = tile
        st[b, SPINNER_SLOT] = slot


@njit(**OPTS)
def score(st, b, scores, gains, side, points, target):
    """Game._score: R3 the target ends the game at once."""
    scores[b, side] += points
    gains[b, side] += points
    if scores[b, side] >= target:
        st[b, GAME_OVER] = 1
        st[b, WINNERS] = 1 << side


@njit(**OPTS)
def bonus(scoring, opponents_pips, own_pips):
    """R21 round5(opponents), or V4 bonus_net round5(opponents - own), never below zero."""
    if scoring == SCORING_NET:
        return round5(opponents_pips - own_pips) if opponents_pips > own_pips else 0
    return round5(opponents_pips)


@njit(**OPTS)
def hand_end_points(hands, b, n, sides, scoring, domino_seat):
    """scoring.hand_end_points: each side's hand-end points (R21-R24, V4) as a 3-tuple."""
    p0 = mask_pips(hands[b, 0])
    p1 = mask_pips(hands[b, 1])
    p2 = mask_pips(hands[b, 2]) if n > 2 else 0
    p3 = mask_pips(hands[b, 3]) if n > 3 else 0
    if n == 4:
        s0, s1, s2 = p0 + p2, p1 + p3, 0
    else:
        s0, s1, s2 = p0, p1, p2
    if scoring == SCORING_PENALTY:  # V4: every player pays its own pips, rounded
        if n == 4:
            return (-float(round5(p0)) - round5(p2), -float(round5(p1)) - round5(p3), 0.0)
        return (-float(round5(p0)), -float(round5(p1)), -float(round5(p2)))
    if domino_seat >= 0:  # R17: the dominoing side wins the hand
        winners = 1 << side_of(domino_seat, n)
    else:  # R18: lowest side total; ties below
        lowest = min(s0, s1) if sides == 2 else min(s0, min(s1, s2))
        winners = 0
        if s0 == lowest:
            winners |= 1
        if s1 == lowest:
            winners |= 2
        if sides == 3 and s2 == lowest:
            winners |= 4
    total = s0 + s1 + s2
    if winners == 1:  # R21: all opponents' pips, rounded once
        return (float(bonus(scoring, total - s0, s0)), 0.0, 0.0)
    if winners == 2:
        return (0.0, float(bonus(scoring, total - s1, s1)), 0.0)
    if winners == 4:
        return (0.0, 0.0, float(bonus(scoring, total - s2, s2)))
    if sides == 3 and popcount(winners) == 2:  # R23: the third player's pips, split in half
        if winners == 3:
            share = bonus(scoring, s2, s0) / 2
            return (share, share, 0.0)
        if winners == 5:
            share = bonus(scoring, s1, s0) / 2
            return (share, 0.0, share)
        share = bonus(scoring, s0, s1) / 2
        return (0.0, share, share)
    return (0.0, 0.0, 0.0)  # R22, R23 three-way tie: no bonus


@njit(**OPTS)
def end_hand(st, b, hands, scores, gains, cfg, target, domino_seat):
    """Game._end_hand: hand-end points, R19 next leader, R25 target after a bonus."""
    sides = cfg[C_SIDES]
    pts = hand_end_points(hands, b, cfg[C_N], sides, cfg[C_SCORING], domino_seat)
    for side in range(sides):
        scores[b, side] += pts[side]
        gains[b, side] += pts[side]
    st[b, HAND_OVER] = 1
    st[b, NEXT_LEADER] = domino_seat  # -1 after a block: a fresh draw (R19)
    best, reached = -1e300, 0
    for side in range(sides):
        if scores[b, side] >= target:
            reached |= 1 << side
            best = max(best, scores[b, side])
    if reached:  # R25: the highest of the sides at the target wins; equal scores draw
        st[b, GAME_OVER] = 1
        winners = 0
        for side in range(sides):
            if (reached >> side) & 1 and scores[b, side] == best:
                winners |= 1 << side
        st[b, WINNERS] = winners


@njit(**OPTS)
def check_block(st, b, hands, scores, gains, cfg, target):
    """R18/C2: an empty boneyard and nobody able to play ends the hand."""
    if st[b, BONE_POS] < 28:
        return
    fits = fitting_tiles(st, b)
    for seat in range(cfg[C_N]):
        if hands[b, seat] & fits:
            return
    end_hand(st, b, hands, scores, gains, cfg, target, -1)


@njit(**OPTS)
def play(st, b, hands, scores, gains, cfg, target, seat, tile, slot):
    """Game._play (C5): place, count and score (R14, R15), target (R3), domino (R17), block."""
    hand = hands[b, seat] & ~(1 << tile)
    hands[b, seat] = hand
    place(st, b, tile, slot)
    hands[b, PLAYED_MASK + seat] |= 1 << tile
    count = layout_count(st, b)
    st[b, COUNT] = count
    points = points_for_count(count, cfg[C_DIVISOR])
    if points:
        score(st, b, scores, gains, side_of(seat, cfg[C_N]), points, target)
        if st[b, GAME_OVER]:
            st[b, HAND_OVER] = 1
            return
    st[b, MUST_PLAY] = -1
    st[b, DRAWN] = 0
    if hand == 0:
        end_hand(st, b, hands, scores, gains, cfg, target, seat)
        return
    st[b, TO_MOVE] = (seat + 1) % cfg[C_N]
    check_block(st, b, hands, scores, gains, cfg, target)


@njit(**OPTS)
def draw(st, b, hands, scores, gains, cfg, target, seat):
    """Game._draw (R13, C1, C2): one tile; a playable one must be played at once."""
    tile = st[b, ORDER + st[b, BONE_POS]]
    st[b, BONE_POS] += 1
    hands[b, seat] |= 1 << tile
    st[b, DRAWN] += 1
    suits = open_suits(st, b)
    st[b, LACKS + seat] = suits  # the drawer lacked every open suit
    if TILE_SUITS[tile] & suits:
        st[b, MUST_PLAY] = tile
    else:
        check_block(st, b, hands, scores, gains, cfg, target)


@njit(**OPTS)
def pass_turn(st, b, hands, scores, gains, cfg, target, seat):
    """Game._pass (R13): only with an empty boneyard; then the block check (C2, C3)."""
    st[b, LACKS + seat] |= open_suits(st, b)
    st[b, DRAWN] = 0
    st[b, TO_MOVE] = (seat + 1) % cfg[C_N]
    check_block(st, b, hands, scores, gains, cfg, target)


@njit(**OPTS)
def apply_action(st, b, hands, scores, gains, cfg, target, action):
    """Game.step: apply a legal action of the seat to move."""
    seat = st[b, TO_MOVE]
    if action < DRAW:
        play(st, b, hands, scores, gains, cfg, target, seat, action >> 2, action & 3)
    elif action == DRAW:
        draw(st, b, hands, scores, gains, cfg, target, seat)
    else:
        pass_turn(st, b, hands, scores, gains, cfg, target, seat)


@njit(**OPTS)
def is_legal(st, b, hands, action):
    """Whether ``action`` is in Game.legal_actions() (R6, R12, R13)."""
    if st[b, HAND_OVER] or st[b, GAME_OVER] or action < 0 or action >= NUM_ACTIONS:
        return False
    hand = hands[b, st[b, TO_MOVE]]
    if st[b, LEAD_TILE] < 0:  # R6: any tile leads, at slot W
        return action < DRAW and (action & 3) == 0 and ((hand >> (action >> 2)) & 1) == 1
    if action < DRAW:
        tile, value = action >> 2, st[b, OPEN + (action & 3)]
        if value < 0 or ((TILE_SUITS[tile] >> value) & 1) == 0:
            return False
        if st[b, MUST_PLAY] >= 0:  # R13: only the drawn tile
            return tile == st[b, MUST_PLAY]
        return ((hand >> tile) & 1) == 1
    if st[b, MUST_PLAY] >= 0 or (hand & fitting_tiles(st, b)) != 0:  # R12: must play
        return False
    return (action == DRAW) == (st[b, BONE_POS] < 28)


@njit(**OPTS)
def forced_action(st, b, hands):
    """DRAW or PASS when that is the only legal action (not a lead, nothing fits), else -1."""
    if st[b, LEAD_TILE] < 0 or st[b, MUST_PLAY] >= 0 or (hands[b, st[b, TO_MOVE]] & fitting_tiles(st, b)) != 0:
        return -1
    return DRAW if st[b, BONE_POS] < 28 else PASS


# ----------------------------------------------------------------- encoder
@njit(**OPTS)
def set_bits(out, b, base, bits):
    """out[b, base + t] = 1 for every tile t in the bit mask."""
    while bits:
        low = bits & -bits
        bits ^= low
        out[b, base + bit_index(low)] = 1.0


@njit(**OPTS)
def encode(st, b, hands, scores, seat, turn, cfg, fcfg, off, out, mask):
    """DefaultEncoder.encode for ``seat``; with ``turn`` also the mover's parts and the mask.

    Relative seat of ``other`` is ``(other - seat) mod n``; written without ``%``
    (a division) because this runs once per decision."""
    n = cfg[C_N]
    for i in range(out.shape[1]):
        out[b, i] = 0.0
    set_bits(out, b, off[O_HAND], hands[b, seat])
    own_side = side_of(seat, n)
    score_norm = fcfg[F_SCORE_NORM]
    for rel in range(n):
        other = seat + rel
        if other >= n:
            other -= n
        set_bits(out, b, off[O_PLAYED_BY] + 28 * rel, hands[b, PLAYED_MASK + other])
        if side_of(other, n) == own_side:
            out[b, off[O_SAME_SIDE] + rel] = 1.0
        lacks = st[b, LACKS + other]
        if lacks:
            for suit in range(7):
                if (lacks >> suit) & 1:
                    out[b, off[O_LACKS] + 7 * rel + suit] = 1.0
        out[b, off[O_HAND_SIZES] + rel] = popcount(hands[b, other]) / 10.0
        if n < 4:  # each seat its own side, observer first (encoders._relative_sides)
            out[b, off[O_SCORES] + rel] = scores[b, other] * score_norm
        if other == st[b, TO_MOVE]:
            out[b, off[O_TO_MOVE] + rel] = 1.0
        if other == st[b, LEADER]:
            out[b, off[O_LEADER] + rel] = 1.0
    if n == 4:  # two partnerships, observer's side first
        out[b, off[O_SCORES]] = scores[b, seat & 1] * score_norm
        out[b, off[O_SCORES] + 1] = scores[b, 1 - (seat & 1)] * score_norm
    for slot in range(4):
        value = st[b, OPEN + slot]
        if value < 0:
            continue
        out[b, off[O_SLOT_AVAILABLE] + slot] = 1.0
        out[b, off[O_SLOT_VALUE] + 7 * slot + value] = 1.0
        weight = st[b, WEIGHT + slot]
        if weight == 2:
            out[b, off[O_SLOT_DOUBLE_END] + slot] = 1.0
        if weight:
            out[b, off[O_SLOT_COUNTS] + slot] = 1.0
    spinner = st[b, SPINNER_TILE]
    if spinner >= 0:
        out[b, off[O_SPINNER_STATE] + (2 if st[b, BRANCHES_OPEN] else 1)] = 1.0
        out[b, off[O_SPINNER_VALUE] + LOW[spinner]] = 1.0
    else:
        out[b, off[O_SPINNER_STATE]] = 1.0
    if st[b, LEAD_TILE] < 0:
        out[b, off[O_IS_LEAD]] = 1.0
    out[b, off[O_COUNT]] = st[b, COUNT] / 36.0
    out[b, off[O_BONEYARD]] = (28 - st[b, BONE_POS]) * fcfg[F_BONE_NORM]
    if turn:
        encode_turn(st, b, hands, seat, cfg, off, out, mask)


@njit(**OPTS)
def add_placements(st, b, fits_in, divisor, points_off, out, mask):
    """Mask and placement points (R15 / 35) of every placement of the tiles in ``fits_in``."""
    for slot in range(4):
        value = st[b, OPEN + slot]
        if value < 0:
            continue
        fits = fits_in & SUIT_TILES[value]
        while fits:
            low = fits & -fits
            fits ^= low
            tile = bit_index(low)
            action = 4 * tile + slot
            mask[b, action] = 1
            points = points_for_count(count_after(st, b, tile, slot), divisor)
            if points:
                out[b, points_off + action] = points / 35.0


@njit(**OPTS)
def encode_turn(st, b, hands, seat, cfg, off, out, mask):
    """DefaultEncoder._encode_turn plus the action mask (Game.legal_actions)."""
    for a in range(NUM_ACTIONS):
        mask[b, a] = 0
    out[b, off[O_DRAWN]] = st[b, DRAWN] / 10.0
    hand = hands[b, seat]
    divisor = cfg[C_DIVISOR]
    points_off = off[O_PLACEMENT]
    if st[b, LEAD_TILE] < 0:  # R6: any tile leads at W
        bits = hand
        while bits:
            low = bits & -bits
            bits ^= low
            t = bit_index(low)
            mask[b, 4 * t] = 1
            points = points_for_count(count_after(st, b, t, 0), divisor)
            if points:
                out[b, points_off + 4 * t] = points / 35.0
    elif st[b, MUST_PLAY] >= 0:  # R13: the drawn tile
        out[b, off[O_FORCED] + 1] = 1.0
        add_placements(st, b, 1 << st[b, MUST_PLAY], divisor, points_off, out, mask)
    elif hand & fitting_tiles(st, b):  # R12
        add_placements(st, b, hand, divisor, points_off, out, mask)
    elif st[b, BONE_POS] < 28:  # R13: draw
        out[b, off[O_FORCED]] = 1.0
        mask[b, DRAW] = 1
    else:  # R13: pass
        out[b, off[O_FORCED] + 2] = 1.0
        mask[b, PASS] = 1


# -------------------------------------------------------------- env layer
@njit(**OPTS)
def episode_over(st, b, episode):
    return st[b, GAME_OVER] == 1 or (st[b, HAND_OVER] == 1 and episode == EPISODE_HAND)


@njit(**OPTS)
def advance_hand(st, b, hands, scores, hstart, rng, cfg):
    """env._advance_hand: deal the next hand in game episodes; (running, dealt)."""
    if episode_over(st, b, cfg[C_EPISODE]):
        return False, False
    if st[b, HAND_OVER]:
        deal_random(st, b, hands, scores, hstart, rng, cfg)
        return True, True
    return True, False


@njit(**OPTS)
def resolve_forced(st, b, hands, scores, hstart, gains, rng, cfg, target):
    """env._resolve_forced (auto_forced): play single-choice draws and passes; True if a hand was dealt."""
    dealt = False
    while True:
        running, new = advance_hand(st, b, hands, scores, hstart, rng, cfg)
        dealt = dealt or new
        if not running:
            return dealt
        action = forced_action(st, b, hands)
        if action < 0:
            return dealt
        apply_action(st, b, hands, scores, gains, cfg, target, action)


@njit(**OPTS)
def set_rewards(st, b, scores, hstart, gains, cfg, terminal, rewards):
    """env._set_rewards / _set_win_rewards for every seat."""
    n, sides, mode = cfg[C_N], cfg[C_SIDES], cfg[C_REWARD]
    if mode == REWARD_POINTS:
        for seat in range(n):
            rewards[b, seat] = gains[b, side_of(seat, n)]
    elif mode == REWARD_ZERO_SUM:
        total = 0.0
        for side in range(sides):
            total += gains[b, side]
        for seat in range(n):
            side = side_of(seat, n)
            rewards[b, seat] = gains[b, side] - (total - gains[b, side]) / (sides - 1)
    elif not terminal:
        for seat in range(n):
            rewards[b, seat] = 0.0
    else:  # win: +1 winner, -1 the others, 0 for sides in a drawn game (R25)
        if st[b, GAME_OVER]:
            winners = st[b, WINNERS]
        else:  # a hand episode: rank by the points gained this hand
            best = -1e300
            for side in range(sides):
                best = max(best, scores[b, side] - hstart[b, side])
            winners = 0
            for side in range(sides):
                if scores[b, side] - hstart[b, side] == best:
                    winners |= 1 << side
        drawn = popcount(winners) > 1
        for seat in range(n):
            if (winners >> side_of(seat, n)) & 1:
                rewards[b, seat] = 0.0 if drawn else 1.0
            else:
                rewards[b, seat] = -1.0


@njit(**OPTS, inline='always')
def step_game(b, action, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
              to_move, obs, mask, rewards, terminated, scores_out, new_hand,
              final_obs, final_scores, final_seat):
    """One env step of game b: apply, resolve forced steps, deal on or auto-reset, observe."""
    target = fcfg[F_TARGET]
    for side in range(gains.shape[1]):
        gains[b, side] = 0.0
    apply_action(st, b, hands, scores, gains, cfg, target, action)
    if cfg[C_AUTO_FORCED]:
        dealt = resolve_forced(st, b, hands, scores, hstart, gains, rng, cfg, target)
        running = not episode_over(st, b, cfg[C_EPISODE])
    else:
        running, dealt = advance_hand(st, b, hands, scores, hstart, rng, cfg)
    set_rewards(st, b, scores, hstart, gains, cfg, not running, rewards)
    terminated[b] = not running
    if not running:  # auto-reset: keep the ended episode's view and scores
        seat = st[b, TO_MOVE]
        final_seat[b] = seat
        encode(st, b, hands, scores, seat, False, cfg, fcfg, off, final_obs, mask)
        for side in range(scores.shape[1]):
            final_scores[b, side] = scores[b, side]
        new_game(st, b, hands, scores, hstart, rng, cfg)
        dealt = True
    new_hand[b] = dealt
    observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**OPTS)
def observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out):
    """Write to_move, the mover's observation and mask, and the scores of game b."""
    seat = st[b, TO_MOVE]
    to_move[b] = seat
    encode(st, b, hands, scores, seat, True, cfg, fcfg, off, obs, mask)
    for side in range(scores.shape[1]):
        scores_out[b, side] = scores[b, side]


@njit(**OPTS)
def first_illegal(actions, st, hands):
    """Index of the first game whose action is not legal, or -1."""
    for b in range(actions.shape[0]):
        if not is_legal(st, b, hands, actions[b]):
            return b
    return -1


@njit(**ENTRY)
def step_all_serial(actions, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                    to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                    final_obs, final_scores, final_seat):
    """Validate every action, then step every game; returns the first illegal index or -1."""
    bad = first_illegal(actions, st, hands)
    if bad >= 0:
        return bad
    for b in range(actions.shape[0]):
        step_game(b, actions[b], st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                  to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                  final_obs, final_scores, final_seat)
    return -1


@njit(**ENTRY, parallel=True)
def step_all_parallel(actions, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                      to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                      final_obs, final_scores, final_seat):
    """step_all_serial with the games spread over threads (numba prange); same results."""
    bad = first_illegal(actions, st, hands)
    if bad >= 0:
        return bad
    for b in prange(actions.shape[0]):
        step_game(b, actions[b], st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
                  to_move, obs, mask, rewards, terminated, scores_out, new_hand,
                  final_obs, final_scores, final_seat)
    return -1


@njit(**ENTRY)
def reset_all(st, hands, scores, hstart, rng, cfg, fcfg, off, to_move, obs, mask, scores_out, new_hand):
    """A new game in every env (random deals from each game's stream)."""
    for b in range(st.shape[0]):
        new_game(st, b, hands, scores, hstart, rng, cfg)
        new_hand[b] = True
        observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**ENTRY)
def set_deal(b, order, leader, start_scores, st, hands, scores, hstart, cfg, fcfg, off,
             to_move, obs, mask, scores_out, new_hand):
    """Start a hand of game b from a given deal order and scores (a new game position)."""
    for t in range(28):
        st[b, ORDER + t] = order[t]
    for side in range(scores.shape[1]):
        scores[b, side] = start_scores[side]
    st[b, GAME_OVER] = 0
    st[b, WINNERS] = 0
    st[b, NEXT_LEADER] = -1
    start_hand(st, b, hands, scores, hstart, leader, cfg[C_N], cfg[C_HAND_SIZE])
    new_hand[b] = True
    observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**ENTRY)
def random_legal_actions(mask, rng, out):
    """A uniformly random legal action per row of ``mask`` from per-row streams ``rng``."""
    for b in range(mask.shape[0]):
        total = 0
        for a in range(mask.shape[1]):
            total += mask[b, a]
        out[b] = -1  # a row without legal actions (no game gives one) gets -1
        k = rand_below(rng, b, total)
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
    return out


# ------------------------------------------------------- single-game AEC core
# The compiled backend of the AEC env (allfives_env.cores.CompiledCore) runs one
# game (row 0) through these entries. Deals come from Python (rules.game.draw_deal)
# so that a seed gives the same games as the pure-Python engine; the masks are
# one row per seat, only the mover's row non-zero, as the env hands them out.
AEC_OVER, AEC_DEAL = -1, -2  # aec_* results besides a seat to move


@njit(**OPTS)
def aec_settle(st, hands, scores, gains, cfg, fcfg, off, obs, masks):
    """After a transition: resolve forced steps (auto_forced), then either stop at
    the episode's end (AEC_OVER), ask for the next deal (AEC_DEAL), or encode the
    mover's observation and mask and return the mover."""
    for seat in range(masks.shape[0]):
        for a in range(NUM_ACTIONS):
            masks[seat, a] = 0
    while True:
        if episode_over(st, 0, cfg[C_EPISODE]):
            return AEC_OVER
        if st[0, HAND_OVER]:
            return AEC_DEAL
        if not cfg[C_AUTO_FORCED]:
            break
        action = forced_action(st, 0, hands)
        if action < 0:
            break
        apply_action(st, 0, hands, scores, gains, cfg, fcfg[F_TARGET], action)
    seat = st[0, TO_MOVE]
    encode(st, 0, hands, scores, seat, True, cfg, fcfg, off, obs, masks[seat:seat + 1])
    return seat


# The compiled core packs its arrays into three buffers (numba checks every array
# argument on each call, about 0.1 us apiece): int64 ``ibuf`` = hands (8) | cfg
# (NUM_CFG) | off (20); float64 ``fbuf`` = scores | hand-start scores | gains (one
# per side each) | fcfg (3); int8 ``bbuf`` = st (NUM_FIELDS) | masks (n x 114).
AEC_I_CFG = 8
AEC_I_OFF = AEC_I_CFG + NUM_CFG
AEC_I_SIZE = AEC_I_OFF + len(OBS_PARTS)


@njit(**OPTS)
def aec_views(ibuf, fbuf, bbuf):
    cfg = ibuf[AEC_I_CFG:AEC_I_OFF]
    n, sides = cfg[C_N], cfg[C_SIDES]
    hands = ibuf[0:8].reshape((1, 8))
    off = ibuf[AEC_I_OFF:AEC_I_SIZE]
    scores = fbuf[0:sides].reshape((1, sides))
    hstart = fbuf[sides:2 * sides].reshape((1, sides))
    gains = fbuf[2 * sides:3 * sides].reshape((1, sides))
    fcfg = fbuf[3 * sides:3 * sides + 3]
    st = bbuf[0:NUM_FIELDS].reshape((1, NUM_FIELDS))
    masks = bbuf[NUM_FIELDS:NUM_FIELDS + n * NUM_ACTIONS].reshape((n, NUM_ACTIONS))
    return cfg, hands, off, scores, hstart, gains, fcfg, st, masks


@njit(**ENTRY)
def aec_step(action, ibuf, fbuf, bbuf, obs):
    """Apply the mover's (legal, checked by the caller) action; gains get the step's
    points. Returns aec_settle's result, plus 8 when some side scored (a seat is < 8)."""
    cfg, hands, off, scores, hstart, gains, fcfg, st, masks = aec_views(ibuf, fbuf, bbuf)
    for side in range(gains.shape[1]):
        gains[0, side] = 0.0
    apply_action(st, 0, hands, scores, gains, cfg, fcfg[F_TARGET], action)
    result = aec_settle(st, hands, scores, gains, cfg, fcfg, off, obs, masks)
    for side in range(gains.shape[1]):
        if gains[0, side] != 0.0:
            return result + 8 if result >= 0 else result - 8
    return result


@njit(**ENTRY)
def aec_deal(order, leader, new_game, start_scores, ibuf, fbuf, bbuf, obs):
    """Start a hand from ``order`` (hands seat by seat, then the boneyard) led by
    ``leader``: the next hand of the running game, or with ``new_game`` a new game
    at ``start_scores``. ``gains`` keeps what the step that ended the last hand scored."""
    cfg, hands, off, scores, hstart, gains, fcfg, st, masks = aec_views(ibuf, fbuf, bbuf)
    for t in range(28):
        st[0, ORDER + t] = order[t]
    if new_game:
        for side in range(scores.shape[1]):
            scores[0, side] = start_scores[side]
            gains[0, side] = 0.0
        st[0, GAME_OVER] = 0
        st[0, WINNERS] = 0
    start_hand(st, 0, hands, scores, hstart, leader, cfg[C_N], cfg[C_HAND_SIZE])
    return aec_settle(st, hands, scores, gains, cfg, fcfg, off, obs, masks)


@njit(**ENTRY)
def aec_observe(seat, st, hands, scores, cfg, fcfg, off, out, masks):
    """The default observation of ``seat`` when it is not at a decision (masks untouched)."""
    encode(st, 0, hands, scores, seat, False, cfg, fcfg, off, out, masks)
