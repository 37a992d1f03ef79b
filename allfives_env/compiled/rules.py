"""The rules of :class:`allfives_env.rules.game.Game`, compiled: counts, deals and transitions.

Every kernel mirrors one method of the reference engine and names the rule ids
it implements; ``tests/compiled/test_compiled_parity.py`` plays thousands of
games through both and compares every step.
"""

import numpy as np
from numba import njit

from ..rules import actions as _codec
from .rng import rand_below
from .state import (
    ALL_TILES,
    ARM,
    BONE_POS,
    BRANCHES_OPEN,
    C_DIVISOR,
    C_FIRST_LEADER,
    C_HAND_SIZE,
    C_N,
    C_SCORING,
    C_SIDES,
    CENTER,
    COUNT,
    DRAW,
    DRAWN,
    GAME_OVER,
    HAND_OVER,
    HEAVINESS,
    HIGH,
    LACKS,
    LEAD_TILE,
    LEADER,
    LOW,
    MUST_PLAY,
    NEXT_LEADER,
    NUM_ACTIONS,
    OPEN,
    OPTS,
    ORDER,
    PASS,
    PLAYED_MASK,
    SCORING_NET,
    SCORING_PENALTY,
    SPINNER_SLOT,
    SPINNER_TILE,
    SUIT_TILES,
    TILE_SUITS,
    TO_MOVE,
    WEIGHT,
    WINNERS,
)

#: The codec's unchecked id helpers (:mod:`allfives_env.rules.actions`), compiled from the same source.
tile_of = njit(inline="always", **OPTS)(_codec.tile_of)
slot_of = njit(inline="always", **OPTS)(_codec.slot_of)
placement_id = njit(inline="always", **OPTS)(_codec.placement_id)

# de Bruijn table: index of an isolated bit below 2**32.
_DEBRUIJN = np.array([0, 1, 28, 2, 29, 14, 24, 3, 30, 22, 20, 15, 25, 17, 4, 8,
                      31, 27, 13, 23, 21, 19, 16, 7, 26, 12, 18, 6, 11, 5, 10, 9], np.int64)


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
def clear_layout(st, b):
    """An empty layout in row ``b``: no lead, no spinner, four unopened arms, count 0 (R8)."""
    st[b, LEAD_TILE] = -1
    st[b, SPINNER_TILE] = -1
    st[b, SPINNER_SLOT] = CENTER
    st[b, BRANCHES_OPEN] = 0
    for slot in range(4):
        st[b, OPEN + slot] = -1
        st[b, WEIGHT + slot] = 0
        st[b, ARM + slot] = 0
    st[b, COUNT] = 0


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
    clear_layout(st, b)
    for seat in range(4):
        st[b, LACKS + seat] = 0
    st[b, MUST_PLAY] = -1
    st[b, DRAWN] = 0
    for side in range(scores.shape[1]):
        hstart[b, side] = scores[b, side]


@njit(**OPTS)
def deal_random(st, b, hands, scores, hstart, rng, cfg):
    """Game.start_next_hand (or the deal of start_game): R19 leader, R4 shuffle.

    Every deal takes the same amount of randomness from ``rng[b]``: a leader is
    always drawn (R5/V3) and used only when the rules call for a draw (a new game,
    or after a block, R19: ``NEXT_LEADER < 0``), else the R19 leader leads. So
    games started from the same stream state get the same k-th deal whatever
    their moves (duplicate deals)."""
    n = cfg[C_N]
    drawn = draw_leader(st, b, rng, n, cfg[C_FIRST_LEADER])  # may use the ORDER area: the shuffle resets it
    leader = st[b, NEXT_LEADER]
    if leader < 0:
        leader = drawn
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
def place_and_count(st, b, tile, slot):
    """:func:`place`, then the layout's new count (R14) into ``COUNT``; returns the count. The public
    part of a placement, also for the replays of a hand's public moves (hand reading, exclusions)."""
    place(st, b, tile, slot)
    count = layout_count(st, b)
    st[b, COUNT] = count
    return count


@njit(**OPTS)
def note_lacks(st, b, seat, action):
    """What a draw or a pass (``action``) shows of ``seat``'s hand (R13): it lacked every open suit.
    A pass adds them to the suits it is known to lack; after a draw its hand is new, so they are all it
    is known to lack. Returns the open suits."""
    suits = open_suits(st, b)
    st[b, LACKS + seat] = suits if action == DRAW else st[b, LACKS + seat] | suits
    return suits


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
    hands[b, PLAYED_MASK + seat] |= 1 << tile
    count = place_and_count(st, b, tile, slot)
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
    suits = note_lacks(st, b, seat, DRAW)
    if TILE_SUITS[tile] & suits:
        st[b, MUST_PLAY] = tile
    else:
        check_block(st, b, hands, scores, gains, cfg, target)


@njit(**OPTS)
def pass_turn(st, b, hands, scores, gains, cfg, target, seat):
    """Game._pass (R13): only with an empty boneyard; then the block check (C2, C3)."""
    note_lacks(st, b, seat, PASS)
    st[b, DRAWN] = 0
    st[b, TO_MOVE] = (seat + 1) % cfg[C_N]
    check_block(st, b, hands, scores, gains, cfg, target)


@njit(**OPTS)
def apply_action(st, b, hands, scores, gains, cfg, target, action):
    """Game.step: apply a legal action of the seat to move."""
    seat = st[b, TO_MOVE]
    if action < DRAW:
        play(st, b, hands, scores, gains, cfg, target, seat, tile_of(action), slot_of(action))
    elif action == DRAW:
        draw(st, b, hands, scores, gains, cfg, target, seat)
    else:
        pass_turn(st, b, hands, scores, gains, cfg, target, seat)


@njit(**OPTS)
def placeable_tiles(st, b, hands):
    """The tiles the seat to move may place (bit mask; Game.legal_actions): any tile of its hand at a
    lead (R6), only the drawn tile after a draw (R13), else the tiles of its hand that fit (R12); 0 when
    it must draw or pass. With :func:`slot_tiles` and :func:`forced_action` this is the compiled
    engine's one statement of legality: every kernel that needs the legal actions asks these, during a
    hand (once a hand or the game is over nothing is legal: :func:`is_legal` checks that first)."""
    if st[b, LEAD_TILE] < 0:
        return hands[b, st[b, TO_MOVE]]
    if st[b, MUST_PLAY] >= 0:
        return 1 << st[b, MUST_PLAY]
    return hands[b, st[b, TO_MOVE]] & fitting_tiles(st, b)


@njit(**OPTS)
def slot_tiles(st, b, slot):
    """The tiles (bit mask) that may go at ``slot``: at a lead any tile at W alone (R6), else the
    tiles carrying the slot's open value (none where the slot is not available)."""
    if st[b, LEAD_TILE] < 0:
        return ALL_TILES if slot == 0 else 0
    value = st[b, OPEN + slot]
    return SUIT_TILES[value] if value >= 0 else 0


@njit(**OPTS)
def forced_action(st, b, hands):
    """DRAW or PASS when that is the only legal action (nothing may be placed: R13), else -1."""
    if placeable_tiles(st, b, hands):
        return -1
    return DRAW if st[b, BONE_POS] < 28 else PASS


@njit(**OPTS)
def is_legal(st, b, hands, action):
    """Whether ``action`` is in Game.legal_actions() (R6, R12, R13)."""
    if st[b, HAND_OVER] or st[b, GAME_OVER] or action < 0 or action >= NUM_ACTIONS:
        return False
    if action < DRAW:
        fits = placeable_tiles(st, b, hands) & slot_tiles(st, b, slot_of(action))
        return ((fits >> tile_of(action)) & 1) == 1
    return action == forced_action(st, b, hands)


@njit(**OPTS)
def legal_placements(st, b, hands, out):
    """The legal placements of the seat to move (ascending action ids) into ``out``; returns how many.
    Zero when the only legal action is a draw or a pass."""
    tiles = placeable_tiles(st, b, hands)
    n = 0
    for t in range(28):  # ascending tiles, each at its slots in order: ascending ids (tile * 4 + slot)
        if (tiles >> t) & 1:
            for slot in range(4):
                if (slot_tiles(st, b, slot) >> t) & 1:
                    out[n] = placement_id(t, slot)
                    n += 1
    return n


