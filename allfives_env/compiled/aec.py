"""The single-game protocol of the AEC env's compiled core
(:class:`allfives_env.env.cores.CompiledCore`).
"""

from numba import njit

from .encode import encode
from .rules import apply_action, start_hand
from .state import (
    C_AUTO_FORCED,
    C_EPISODE,
    C_HAND_SIZE,
    C_N,
    C_SIDES,
    F_TARGET,
    GAME_OVER,
    HAND_OVER,
    NUM_ACTIONS,
    NUM_CFG,
    NUM_FIELDS,
    OBS_PARTS,
    OPTS,
    ORDER,
    TO_MOVE,
    WINNERS,
)
from .step import episode_over, play_forced

# The compiled backend of the AEC env (allfives_env.env.cores.CompiledCore) runs one
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
    if cfg[C_AUTO_FORCED]:
        play_forced(st, 0, hands, scores, gains, cfg, fcfg[F_TARGET])
    if episode_over(st, 0, cfg[C_EPISODE]):
        return AEC_OVER
    if st[0, HAND_OVER]:
        return AEC_DEAL
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


@njit(**OPTS)
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


@njit(**OPTS)
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


@njit(**OPTS)
def aec_observe(seat, st, hands, scores, cfg, fcfg, off, out, masks):
    """The default observation of ``seat`` when it is not at a decision (masks untouched)."""
    encode(st, 0, hands, scores, seat, False, cfg, fcfg, off, out, masks)
