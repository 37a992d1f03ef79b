"""The default observation (:class:`allfives_env.env.encoders.DefaultEncoder`), compiled."""

from numba import njit

from ..rules.scoring import MAX_COUNT, MAX_POINTS
from .rules import (
    bit_index,
    count_after,
    forced_action,
    placeable_tiles,
    placement_id,
    points_for_count,
    popcount,
    side_of,
    slot_tiles,
)
from .state import (
    BONE_POS,
    BRANCHES_OPEN,
    C_DIVISOR,
    C_N,
    COUNT,
    DRAW,
    DRAWN,
    F_BONE_NORM,
    F_SCORE_NORM,
    LACKS,
    LEAD_TILE,
    LEADER,
    LOW,
    MUST_PLAY,
    NUM_ACTIONS,
    O_BONEYARD,
    O_COUNT,
    O_DRAWN,
    O_FORCED,
    O_HAND,
    O_HAND_SIZES,
    O_IS_LEAD,
    O_LACKS,
    O_LEADER,
    O_PLACEMENT,
    O_PLAYED_BY,
    O_SAME_SIDE,
    O_SCORES,
    O_SLOT_AVAILABLE,
    O_SLOT_COUNTS,
    O_SLOT_DOUBLE_END,
    O_SLOT_VALUE,
    O_SPINNER_STATE,
    O_SPINNER_VALUE,
    O_TO_MOVE,
    OPEN,
    OPTS,
    PLAYED_MASK,
    SIZE_SCALE,
    SPINNER_TILE,
    TO_MOVE,
    WEIGHT,
)


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
        out[b, off[O_HAND_SIZES] + rel] = popcount(hands[b, other]) / SIZE_SCALE
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
    out[b, off[O_COUNT]] = st[b, COUNT] / MAX_COUNT
    out[b, off[O_BONEYARD]] = (28 - st[b, BONE_POS]) * fcfg[F_BONE_NORM]
    if turn:
        encode_turn(st, b, hands, cfg, off, out, mask)


@njit(**OPTS)
def encode_turn(st, b, hands, cfg, off, out, mask):
    """DefaultEncoder._encode_turn for the seat to move, plus its action mask (Game.legal_actions, as
    the rules kernels state it: :func:`~.rules.placeable_tiles`, :func:`~.rules.slot_tiles`,
    :func:`~.rules.forced_action`)."""
    for a in range(NUM_ACTIONS):
        mask[b, a] = 0
    out[b, off[O_DRAWN]] = st[b, DRAWN] / SIZE_SCALE
    tiles = placeable_tiles(st, b, hands)
    if not tiles:  # R13: a forced draw or pass
        forced = forced_action(st, b, hands)
        out[b, off[O_FORCED] + (0 if forced == DRAW else 2)] = 1.0  # the flags: draw, play the drawn tile, pass
        mask[b, forced] = 1
        return
    if st[b, MUST_PLAY] >= 0:  # R13: the drawn tile
        out[b, off[O_FORCED] + 1] = 1.0
    divisor = cfg[C_DIVISOR]
    points_off = off[O_PLACEMENT]
    for slot in range(4):
        fits = tiles & slot_tiles(st, b, slot)
        while fits:  # each tile placeable at this slot: isolate the lowest set bit
            low = fits & -fits
            fits ^= low
            tile = bit_index(low)
            action = placement_id(tile, slot)
            mask[b, action] = 1
            points = points_for_count(count_after(st, b, tile, slot), divisor)  # R15 / 35
            if points:
                out[b, points_off + action] = points / MAX_POINTS
