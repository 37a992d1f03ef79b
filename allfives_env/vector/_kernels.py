"""Numba kernels of the batched environment: the rules of game.py, the default
encoder of encoders.py and a per-game random generator, over arrays.

Every function here mirrors one method of :class:`allfives_env.rules.game.Game`
(or of :class:`allfives_env.encoders.DefaultEncoder`) and names the rule ids it
implements; the pure-Python engine stays the readable reference and
``tests/vector/test_vector_differential.py`` checks both agree step by step.

State of game ``b`` (structure of arrays, one row per game):

* ``st[b]`` (int8, :data:`NUM_FIELDS` columns): the small fields below, then
  the deal order (28 tiles: the hands as dealt, then the boneyard in draw
  order; ``BONE_POS`` points at the next tile to draw) and ``played_by`` (28).
* ``hands[b, seat]`` (int64): bit mask over tile indices (R1).
* ``scores[b, side]`` and ``hand_start[b, side]`` (float64; R24 half points).
* ``rng[b]`` (uint64): the game's SplitMix64 counter.

Config is passed as arrays so one compiled signature serves every variant:
``cfg`` (int64, ``C_*`` indices), ``fcfg`` (float64, ``F_*``) and ``off``
(int64, the encoder offsets in :data:`OBS_PARTS` order).
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
PLAYED = 64  # 28 columns: seat that played each tile this hand, -1 if none
NUM_FIELDS = 96

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

OPTS = dict(cache=True, nogil=True)


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


@njit(**OPTS)
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
def open_suits(g):
    """Bit mask of the values open at an available slot."""
    suits = 0
    for slot in range(4):
        v = g[OPEN + slot]
        if v >= 0:
            suits |= 1 << v
    return suits


@njit(**OPTS)
def fitting_tiles(g):
    """Tiles that fit some available slot now (bit mask)."""
    fits = 0
    for slot in range(4):
        v = g[OPEN + slot]
        if v >= 0:
            fits |= SUIT_TILES[v]
    return fits


@njit(**OPTS)
def layout_count(g):
    """R14: sum of open value x weight over the four slots."""
    total = 0
    for slot in range(4):
        total += g[OPEN + slot] * g[WEIGHT + slot]
    return total


@njit(**OPTS)
def count_after(g, tile, slot):
    """Game.count_after: the count after placing ``tile`` at ``slot`` (R14)."""
    low, high = LOW[tile], HIGH[tile]
    if g[LEAD_TILE] < 0:
        return 2 * low if low == high else low + high
    value = g[OPEN + slot]
    new_end = high if low == value else low
    count = g[COUNT] - value * g[WEIGHT + slot] + new_end * (2 if low == high else 1)
    if g[SPINNER_SLOT] == CENTER and g[SPINNER_TILE] >= 0 and g[BRANCHES_OPEN] == 0:
        other = 1 - slot
        if g[ARM + other] == 0:  # the lone double lead becomes a spinner at an end
            count += (2 - g[WEIGHT + other]) * g[OPEN + other]
    return count


# ------------------------------------------------------------------ deals
@njit(**OPTS)
def draw_leader(g, rng, b, n, first_leader):
    """R5 (uniform seat) or V3 heaviest_tile (n tiles drawn, the heaviest leads)."""
    if first_leader == 0:
        return rand_below(rng, b, n)
    for t in range(28):  # the deal order area is scratch space until the deal
        g[ORDER + t] = t
    best, best_key = 0, -1
    for seat in range(n):
        j = seat + rand_below(rng, b, 28 - seat)
        tile = g[ORDER + j]
        g[ORDER + j] = g[ORDER + seat]
        g[ORDER + seat] = tile
        if HEAVINESS[tile] > best_key:
            best, best_key = seat, HEAVINESS[tile]
    return best


@njit(**OPTS)
def start_hand(g, h, sc, hs, leader, n, hand_size):
    """Game._deal after the order is in g[ORDER:]: hands, empty layout (R4, R8)."""
    for seat in range(4):
        h[seat] = 0
    for seat in range(n):
        mask = 0
        for i in range(hand_size):
            mask |= 1 << g[ORDER + seat * hand_size + i]
        h[seat] = mask
    g[BONE_POS] = n * hand_size
    g[LEADER] = leader
    g[TO_MOVE] = leader
    g[HAND_OVER] = 0
    g[NEXT_LEADER] = -1
    g[LEAD_TILE] = -1
    g[SPINNER_TILE] = -1
    g[SPINNER_SLOT] = CENTER
    g[BRANCHES_OPEN] = 0
    for slot in range(4):
        g[OPEN + slot] = -1
        g[WEIGHT + slot] = 0
        g[ARM + slot] = 0
        g[LACKS + slot] = 0
    g[COUNT] = 0
    for t in range(28):
        g[PLAYED + t] = -1
    g[MUST_PLAY] = -1
    g[DRAWN] = 0
    for side in range(sc.shape[0]):
        hs[side] = sc[side]


@njit(**OPTS)
def deal_random(g, h, sc, hs, rng, b, cfg):
    """Game.start_next_hand (or the deal of start_game): R19 leader, R4 shuffle."""
    n = cfg[C_N]
    leader = g[NEXT_LEADER]
    if leader < 0:
        leader = draw_leader(g, rng, b, n, cfg[C_FIRST_LEADER])
    for t in range(28):
        g[ORDER + t] = t
    for i in range(27, 0, -1):  # Fisher-Yates
        j = rand_below(rng, b, i + 1)
        tile = g[ORDER + j]
        g[ORDER + j] = g[ORDER + i]
        g[ORDER + i] = tile
    start_hand(g, h, sc, hs, leader, n, cfg[C_HAND_SIZE])


@njit(**OPTS)
def new_game(g, h, sc, hs, rng, b, cfg):
    """Game.start_game with a random deal: zero scores, R5/V3 leader."""
    for side in range(sc.shape[0]):
        sc[side] = 0.0
    g[GAME_OVER] = 0
    g[WINNERS] = 0
    g[NEXT_LEADER] = -1
    deal_random(g, h, sc, hs, rng, b, cfg)


# ------------------------------------------------------------- transitions
@njit(**OPTS)
def open_branches(g):
    """R11: both straight sides occupied; N and S open with the spinner's value, counting 0."""
    g[BRANCHES_OPEN] = 1
    value = LOW[g[SPINNER_TILE]]
    g[OPEN + 2] = value
    g[OPEN + 3] = value
    g[WEIGHT + 2] = 0
    g[WEIGHT + 3] = 0


@njit(**OPTS)
def cover_spinner_side(g, slot):
    """Game._cover_spinner_side: a tile attached while a straight side is free (R10, R11)."""
    if g[SPINNER_SLOT] == CENTER:
        other = 1 - slot
        if g[ARM + other] == 0:
            g[WEIGHT + other] = 2  # the lone double lead is now a spinner at an end (R14)
        else:
            open_branches(g)
    elif g[SPINNER_SLOT] == slot:
        open_branches(g)  # R10: tile attached beyond an arm's spinner


@njit(**OPTS)
def place(g, tile, slot):
    """Game._place: the lead (R6, R8) or an attachment (R7, R9, R10)."""
    low, high = LOW[tile], HIGH[tile]
    if g[LEAD_TILE] < 0:
        g[LEAD_TILE] = tile
        if low == high:  # R8/R10: a double lead is the spinner, counted once while alone
            g[OPEN] = low
            g[OPEN + 1] = low
            g[WEIGHT] = 2
            g[WEIGHT + 1] = 0
            g[SPINNER_TILE] = tile
            g[SPINNER_SLOT] = CENTER
        else:  # R8: lower half opens W, higher half E
            g[OPEN] = low
            g[OPEN + 1] = high
            g[WEIGHT] = 1
            g[WEIGHT + 1] = 1
        return
    value = g[OPEN + slot]
    if g[SPINNER_TILE] >= 0 and g[BRANCHES_OPEN] == 0:
        cover_spinner_side(g, slot)
    g[OPEN + slot] = high if low == value else low
    g[WEIGHT + slot] = 2 if low == high else 1  # R9: a double at the end counts twice
    g[ARM + slot] += 1
    if low == high and g[SPINNER_TILE] < 0:  # R10: the first double is the spinner
        g[SPINNER_TILE] = tile
        g[SPINNER_SLOT] = slot


@njit(**OPTS)
def score(g, sc, gain, side, points, target):
    """Game._score: R3 the target ends the game at once."""
    sc[side] += points
    gain[side] += points
    if sc[side] >= target:
        g[GAME_OVER] = 1
        g[WINNERS] = 1 << side


@njit(**OPTS)
def bonus(scoring, opponents_pips, own_pips):
    """R21 round5(opponents), or V4 bonus_net round5(opponents - own), never below zero."""
    if scoring == SCORING_NET:
        return round5(opponents_pips - own_pips) if opponents_pips > own_pips else 0
    return round5(opponents_pips)


@njit(**OPTS)
def hand_end_points(h, n, sides, scoring, domino_seat):
    """scoring.hand_end_points: each side's hand-end points (R21-R24, V4) as a 3-tuple."""
    p0 = mask_pips(h[0])
    p1 = mask_pips(h[1])
    p2 = mask_pips(h[2]) if n > 2 else 0
    p3 = mask_pips(h[3]) if n > 3 else 0
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
def end_hand(g, h, sc, gain, cfg, target, domino_seat):
    """Game._end_hand: hand-end points, R19 next leader, R25 target after a bonus."""
    sides = cfg[C_SIDES]
    pts = hand_end_points(h, cfg[C_N], sides, cfg[C_SCORING], domino_seat)
    for side in range(sides):
        sc[side] += pts[side]
        gain[side] += pts[side]
    g[HAND_OVER] = 1
    g[NEXT_LEADER] = domino_seat  # -1 after a block: a fresh draw (R19)
    best, reached = -1e300, 0
    for side in range(sides):
        if sc[side] >= target:
            reached |= 1 << side
            best = max(best, sc[side])
    if reached:  # R25: the highest of the sides at the target wins; equal scores draw
        g[GAME_OVER] = 1
        winners = 0
        for side in range(sides):
            if (reached >> side) & 1 and sc[side] == best:
                winners |= 1 << side
        g[WINNERS] = winners


@njit(**OPTS)
def check_block(g, h, sc, gain, cfg, target):
    """R18/C2: an empty boneyard and nobody able to play ends the hand."""
    if g[BONE_POS] < 28:
        return
    fits = fitting_tiles(g)
    for seat in range(cfg[C_N]):
        if h[seat] & fits:
            return
    end_hand(g, h, sc, gain, cfg, target, -1)


@njit(**OPTS)
def play(g, h, sc, gain, cfg, target, seat, tile, slot):
    """Game._play (C5): place, count and score (R14, R15), target (R3), domino (R17), block."""
    hand = h[seat] & ~(1 << tile)
    h[seat] = hand
    place(g, tile, slot)
    g[PLAYED + tile] = seat
    count = layout_count(g)
    g[COUNT] = count
    points = points_for_count(count, cfg[C_DIVISOR])
    if points:
        score(g, sc, gain, side_of(seat, cfg[C_N]), points, target)
        if g[GAME_OVER]:
            g[HAND_OVER] = 1
            return
    g[MUST_PLAY] = -1
    g[DRAWN] = 0
    if hand == 0:
        end_hand(g, h, sc, gain, cfg, target, seat)
        return
    g[TO_MOVE] = (seat + 1) % cfg[C_N]
    check_block(g, h, sc, gain, cfg, target)


@njit(**OPTS)
def draw(g, h, sc, gain, cfg, target, seat):
    """Game._draw (R13, C1, C2): one tile; a playable one must be played at once."""
    tile = g[ORDER + g[BONE_POS]]
    g[BONE_POS] += 1
    h[seat] |= 1 << tile
    g[DRAWN] += 1
    suits = open_suits(g)
    g[LACKS + seat] = suits  # the drawer lacked every open suit
    if TILE_SUITS[tile] & suits:
        g[MUST_PLAY] = tile
    else:
        check_block(g, h, sc, gain, cfg, target)


@njit(**OPTS)
def pass_turn(g, h, sc, gain, cfg, target, seat):
    """Game._pass (R13): only with an empty boneyard; then the block check (C2, C3)."""
    g[LACKS + seat] |= open_suits(g)
    g[DRAWN] = 0
    g[TO_MOVE] = (seat + 1) % cfg[C_N]
    check_block(g, h, sc, gain, cfg, target)


@njit(**OPTS)
def apply_action(g, h, sc, gain, cfg, target, action):
    """Game.step: apply a legal action of the seat to move."""
    seat = g[TO_MOVE]
    if action < DRAW:
        play(g, h, sc, gain, cfg, target, seat, action >> 2, action & 3)
    elif action == DRAW:
        draw(g, h, sc, gain, cfg, target, seat)
    else:
        pass_turn(g, h, sc, gain, cfg, target, seat)


@njit(**OPTS)
def is_legal(g, h, action):
    """Whether ``action`` is in Game.legal_actions() (R6, R12, R13)."""
    if g[HAND_OVER] or g[GAME_OVER] or action < 0 or action >= NUM_ACTIONS:
        return False
    hand = h[g[TO_MOVE]]
    if g[LEAD_TILE] < 0:  # R6: any tile leads, at slot W
        return action < DRAW and (action & 3) == 0 and ((hand >> (action >> 2)) & 1) == 1
    if action < DRAW:
        tile, value = action >> 2, g[OPEN + (action & 3)]
        if value < 0 or ((TILE_SUITS[tile] >> value) & 1) == 0:
            return False
        if g[MUST_PLAY] >= 0:  # R13: only the drawn tile
            return tile == g[MUST_PLAY]
        return ((hand >> tile) & 1) == 1
    if g[MUST_PLAY] >= 0 or (hand & fitting_tiles(g)) != 0:  # R12: must play
        return False
    return (action == DRAW) == (g[BONE_POS] < 28)


@njit(**OPTS)
def forced_action(g, h):
    """DRAW or PASS when that is the only legal action (not a lead, nothing fits), else -1."""
    if g[LEAD_TILE] < 0 or g[MUST_PLAY] >= 0 or (h[g[TO_MOVE]] & fitting_tiles(g)) != 0:
        return -1
    return DRAW if g[BONE_POS] < 28 else PASS


# ----------------------------------------------------------------- encoder
@njit(**OPTS)
def encode(g, h, sc, seat, turn, cfg, fcfg, off, out, mask):
    """DefaultEncoder.encode for ``seat``; with ``turn`` also the mover's parts and the mask."""
    n = cfg[C_N]
    for i in range(out.shape[0]):
        out[i] = 0.0
    hand = h[seat]
    o = off[O_HAND]
    for t in range(28):
        if (hand >> t) & 1:
            out[o + t] = 1.0
    o = off[O_PLAYED_BY]
    for t in range(28):
        who = g[PLAYED + t]
        if who >= 0:
            out[o + ((who - seat + n) % n) * 28 + t] = 1.0
    for slot in range(4):
        value = g[OPEN + slot]
        if value < 0:
            continue
        out[off[O_SLOT_AVAILABLE] + slot] = 1.0
        out[off[O_SLOT_VALUE] + 7 * slot + value] = 1.0
        weight = g[WEIGHT + slot]
        if weight == 2:
            out[off[O_SLOT_DOUBLE_END] + slot] = 1.0
        if weight:
            out[off[O_SLOT_COUNTS] + slot] = 1.0
    spinner = g[SPINNER_TILE]
    if spinner >= 0:
        out[off[O_SPINNER_STATE] + (2 if g[BRANCHES_OPEN] else 1)] = 1.0
        out[off[O_SPINNER_VALUE] + LOW[spinner]] = 1.0
    else:
        out[off[O_SPINNER_STATE]] = 1.0
    if g[LEAD_TILE] < 0:
        out[off[O_IS_LEAD]] = 1.0
    own_side = side_of(seat, n)
    for rel in range(n):
        other = (seat + rel) % n
        if side_of(other, n) == own_side:
            out[off[O_SAME_SIDE] + rel] = 1.0
        lacks = g[LACKS + other]
        for suit in range(7):
            if (lacks >> suit) & 1:
                out[off[O_LACKS] + 7 * rel + suit] = 1.0
        out[off[O_HAND_SIZES] + rel] = popcount(h[other]) / 10.0
    out[off[O_TO_MOVE] + (g[TO_MOVE] - seat + n) % n] = 1.0
    out[off[O_LEADER] + (g[LEADER] - seat + n) % n] = 1.0
    out[off[O_COUNT]] = g[COUNT] / 36.0
    out[off[O_BONEYARD]] = (28 - g[BONE_POS]) * fcfg[F_BONE_NORM]
    if n == 4:  # observer's side first (encoders._relative_sides)
        out[off[O_SCORES]] = sc[seat % 2] * fcfg[F_SCORE_NORM]
        out[off[O_SCORES] + 1] = sc[1 - seat % 2] * fcfg[F_SCORE_NORM]
    else:
        for rel in range(n):
            out[off[O_SCORES] + rel] = sc[(seat + rel) % n] * fcfg[F_SCORE_NORM]
    if turn:
        encode_turn(g, h, seat, cfg, off, out, mask)


@njit(**OPTS)
def add_placements(g, fits_in, divisor, points_off, out, mask):
    """Mask and placement points (R15 / 35) of every placement of the tiles in ``fits_in``."""
    for slot in range(4):
        value = g[OPEN + slot]
        if value < 0:
            continue
        fits = fits_in & SUIT_TILES[value]
        while fits:
            low = fits & -fits
            fits ^= low
            tile = bit_index(low)
            action = 4 * tile + slot
            mask[action] = 1
            points = points_for_count(count_after(g, tile, slot), divisor)
            if points:
                out[points_off + action] = points / 35.0


@njit(**OPTS)
def encode_turn(g, h, seat, cfg, off, out, mask):
    """DefaultEncoder._encode_turn plus the action mask (Game.legal_actions)."""
    for a in range(NUM_ACTIONS):
        mask[a] = 0
    out[off[O_DRAWN]] = g[DRAWN] / 10.0
    hand = h[seat]
    divisor = cfg[C_DIVISOR]
    points_off = off[O_PLACEMENT]
    if g[LEAD_TILE] < 0:  # R6: any tile leads at W
        for t in range(28):
            if (hand >> t) & 1:
                mask[4 * t] = 1
                points = points_for_count(count_after(g, t, 0), divisor)
                if points:
                    out[points_off + 4 * t] = points / 35.0
    elif g[MUST_PLAY] >= 0:  # R13: the drawn tile
        out[off[O_FORCED] + 1] = 1.0
        add_placements(g, 1 << g[MUST_PLAY], divisor, points_off, out, mask)
    elif hand & fitting_tiles(g):  # R12
        add_placements(g, hand, divisor, points_off, out, mask)
    elif g[BONE_POS] < 28:  # R13: draw
        out[off[O_FORCED]] = 1.0
        mask[DRAW] = 1
    else:  # R13: pass
        out[off[O_FORCED] + 2] = 1.0
        mask[PASS] = 1


# -------------------------------------------------------------- env layer
@njit(**OPTS)
def episode_over(g, episode):
    return g[GAME_OVER] == 1 or (g[HAND_OVER] == 1 and episode == EPISODE_HAND)


@njit(**OPTS)
def advance_hand(g, h, sc, hs, rng, b, cfg):
    """env._advance_hand: deal the next hand in game episodes; (running, dealt)."""
    if episode_over(g, cfg[C_EPISODE]):
        return False, False
    if g[HAND_OVER]:
        deal_random(g, h, sc, hs, rng, b, cfg)
        return True, True
    return True, False


@njit(**OPTS)
def resolve_forced(g, h, sc, hs, gain, rng, b, cfg, target):
    """env._resolve_forced (auto_forced): play single-choice draws and passes; True if a hand was dealt."""
    dealt = False
    while True:
        running, new = advance_hand(g, h, sc, hs, rng, b, cfg)
        dealt = dealt or new
        if not running:
            return dealt
        action = forced_action(g, h)
        if action < 0:
            return dealt
        apply_action(g, h, sc, gain, cfg, target, action)


@njit(**OPTS)
def set_rewards(g, sc, hs, gain, cfg, terminal, rew):
    """env._set_rewards / _set_win_rewards for every seat."""
    n, sides, mode = cfg[C_N], cfg[C_SIDES], cfg[C_REWARD]
    if mode == REWARD_POINTS:
        for seat in range(n):
            rew[seat] = gain[side_of(seat, n)]
    elif mode == REWARD_ZERO_SUM:
        total = 0.0
        for side in range(sides):
            total += gain[side]
        for seat in range(n):
            side = side_of(seat, n)
            rew[seat] = gain[side] - (total - gain[side]) / (sides - 1)
    elif not terminal:
        for seat in range(n):
            rew[seat] = 0.0
    else:  # win: +1 winner, -1 the others, 0 for sides in a drawn game (R25)
        if g[GAME_OVER]:
            winners = g[WINNERS]
        else:  # a hand episode: rank by the points gained this hand
            best = -1e300
            for side in range(sides):
                best = max(best, sc[side] - hs[side])
            winners = 0
            for side in range(sides):
                if sc[side] - hs[side] == best:
                    winners |= 1 << side
        drawn = popcount(winners) > 1
        for seat in range(n):
            if (winners >> side_of(seat, n)) & 1:
                rew[seat] = 0.0 if drawn else 1.0
            else:
                rew[seat] = -1.0


@njit(**OPTS)
def step_game(b, action, st, hands, scores, hstart, gains, rng, cfg, fcfg, off,
              to_move, obs, mask, rewards, terminated, scores_out, new_hand,
              final_obs, final_scores, final_seat):
    """One env step of game b: apply, resolve forced steps, deal on or auto-reset, observe."""
    g, h, sc, hs, gain = st[b], hands[b], scores[b], hstart[b], gains[b]
    target = fcfg[F_TARGET]
    for side in range(gain.shape[0]):
        gain[side] = 0.0
    apply_action(g, h, sc, gain, cfg, target, action)
    if cfg[C_AUTO_FORCED]:
        dealt = resolve_forced(g, h, sc, hs, gain, rng, b, cfg, target)
        running = not episode_over(g, cfg[C_EPISODE])
    else:
        running, dealt = advance_hand(g, h, sc, hs, rng, b, cfg)
    set_rewards(g, sc, hs, gain, cfg, not running, rewards[b])
    terminated[b] = not running
    if not running:  # auto-reset: keep the ended episode's view and scores
        seat = g[TO_MOVE]
        final_seat[b] = seat
        encode(g, h, sc, seat, False, cfg, fcfg, off, final_obs[b], mask[b])
        for side in range(sc.shape[0]):
            final_scores[b, side] = sc[side]
        new_game(g, h, sc, hs, rng, b, cfg)
        dealt = True
    new_hand[b] = dealt
    observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**OPTS)
def observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out):
    """Write to_move, the mover's observation and mask, and the scores of game b."""
    g = st[b]
    seat = g[TO_MOVE]
    to_move[b] = seat
    encode(g, hands[b], scores[b], seat, True, cfg, fcfg, off, obs[b], mask[b])
    for side in range(scores.shape[1]):
        scores_out[b, side] = scores[b, side]


@njit(**OPTS)
def first_illegal(actions, st, hands):
    """Index of the first game whose action is not legal, or -1."""
    for b in range(actions.shape[0]):
        if not is_legal(st[b], hands[b], actions[b]):
            return b
    return -1


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True, parallel=True)
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


@njit(**OPTS)
def reset_all(st, hands, scores, hstart, rng, cfg, fcfg, off, to_move, obs, mask, scores_out, new_hand):
    """A new game in every env (random deals from each game's stream)."""
    for b in range(st.shape[0]):
        new_game(st[b], hands[b], scores[b], hstart[b], rng, b, cfg)
        new_hand[b] = True
        observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**OPTS)
def set_deal(b, order, leader, start_scores, st, hands, scores, hstart, cfg, fcfg, off,
             to_move, obs, mask, scores_out, new_hand):
    """Start a hand of game b from a given deal order and scores (a new game position)."""
    g = st[b]
    for t in range(28):
        g[ORDER + t] = order[t]
    for side in range(scores.shape[1]):
        scores[b, side] = start_scores[side]
    g[GAME_OVER] = 0
    g[WINNERS] = 0
    g[NEXT_LEADER] = -1
    start_hand(g, hands[b], scores[b], hstart[b], leader, cfg[C_N], cfg[C_HAND_SIZE])
    new_hand[b] = True
    observe_game(b, st, hands, scores, cfg, fcfg, off, to_move, obs, mask, scores_out)


@njit(**OPTS)
def random_legal_actions(mask, rng, out):
    """A uniformly random legal action per row of ``mask`` from per-row streams ``rng``."""
    for b in range(mask.shape[0]):
        row = mask[b]
        total = 0
        for a in range(row.shape[0]):
            total += row[a]
        k = rand_below(rng, b, total)
        for a in range(row.shape[0]):
            if row[a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
    return out
