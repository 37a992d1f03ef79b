"""The compiled core's state layout, its config arrays and the jit options.

State of game ``b`` (structure of arrays, one row per game; every kernel
takes the arrays and the game index ``b``, never a row view):

* ``st[b]`` (int8, :data:`NUM_FIELDS` columns): the small fields below, then
  the deal order (28 tiles: the hands as dealt, then the boneyard in draw
  order; ``BONE_POS`` points at the next tile to draw).
* ``hands[b, seat]`` (int64, 8 columns): each seat's hand as a bit mask over
  tile indices (R1) in columns 0-3, the tiles each seat played this hand in
  columns ``PLAYED_MASK + seat`` (Game.played_by as masks).
* ``scores[b, side]`` and ``hand_start[b, side]`` (float64; R24 half points).
* ``rng[b]`` (uint64): the game's SplitMix64 counter (:mod:`.rng`).

Config is passed as arrays so one compiled signature serves every variant:
``cfg`` (int64, ``C_*`` indices), ``fcfg`` (float64, ``F_*``) and ``off``
(int64, the encoder offsets in :data:`OBS_PARTS` order).

Tile tables and action ids come from :mod:`allfives_env.rules`; nothing here
re-types a rule constant.
"""

import numpy as np

from ..rules.actions import DRAW, NUM_ACTIONS, PASS  # noqa: F401  (re-exported to the kernels)
from ..rules.config import FIRST_LEADER_METHODS, HAND_SCORING_METHODS
from ..rules.game import CENTER  # noqa: F401
from ..rules.scoring import SIZE_SCALE  # noqa: F401  (re-exported to the kernels)
from ..rules.tiles import ALL_TILES_MASK as ALL_TILES  # noqa: F401  (re-exported to the kernels)
from ..rules.tiles import NUM_TILES, TILE_HIGH, TILE_LOW, heaviness
from ..rules.tiles import SUIT_TILES as _SUIT_TILES
from ..rules.tiles import TILE_SUITS as _TILE_SUITS

LOW = np.array(TILE_LOW, np.int64)
HIGH = np.array(TILE_HIGH, np.int64)
SUIT_TILES = np.array(_SUIT_TILES, np.int64)  # tiles carrying each suit (bit mask)
TILE_SUITS = np.array(_TILE_SUITS, np.int64)  # suits each tile carries (bit mask)
#: V3 heaviness (rules.tiles.heaviness) as one sortable number per tile: its rank in heaviness order.
_BY_HEAVINESS = sorted(range(NUM_TILES), key=heaviness)
HEAVINESS = np.array([_BY_HEAVINESS.index(t) for t in range(NUM_TILES)], np.int64)

# columns of st[b]
TO_MOVE, LEADER, LEAD_TILE, SPINNER_TILE, SPINNER_SLOT, BRANCHES_OPEN = 0, 1, 2, 3, 4, 5
BONE_POS, MUST_PLAY, DRAWN, HAND_OVER, GAME_OVER, NEXT_LEADER = 6, 7, 8, 9, 10, 11
COUNT, WINNERS = 12, 13  # WINNERS: bit mask over sides
OPEN, WEIGHT, ARM, LACKS = 16, 20, 24, 28  # 4 columns each (slots W E N S; LACKS per seat)
ORDER = 32  # 28 columns: the deal order (hands, then boneyard)
NUM_FIELDS = 64
#: The batched step's "no move" action: the game is left as it is (not an action id of the rules).
SKIP = -1
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

#: The parts of the default observation, in encoders.default_layout order (a test checks the two agree).
OBS_PARTS = ("hand", "played_by", "slot_available", "slot_value", "slot_double_end", "slot_counts",
             "spinner_state", "spinner_value", "count", "is_lead", "boneyard", "hand_sizes",
             "same_side", "scores", "lacks", "forced", "drawn_this_turn", "to_move", "leader",
             "placement_points")
(O_HAND, O_PLAYED_BY, O_SLOT_AVAILABLE, O_SLOT_VALUE, O_SLOT_DOUBLE_END, O_SLOT_COUNTS,
 O_SPINNER_STATE, O_SPINNER_VALUE, O_COUNT, O_IS_LEAD, O_BONEYARD, O_HAND_SIZES, O_SAME_SIDE,
 O_SCORES, O_LACKS, O_FORCED, O_DRAWN, O_TO_MOVE, O_LEADER, O_PLACEMENT) = range(20)

# No kernel allocates, returns or keeps an array: they only index the arrays
# they are given. So they are compiled without numba's reference counting
# (``_nrt=False``); with it, every call paid an atomic incref/decref per array
# argument, which dominated the step time (and made threads contend).
try:  # ``_nrt`` is a numba compiler option without a public spelling; keep working without it
    from numba.core.cpu import CPUTargetOptions
    _NO_REFCOUNT = {"_nrt": False} if hasattr(CPUTargetOptions, "_nrt") else {}
except ImportError:  # pragma: no cover
    _NO_REFCOUNT = {}
#: jit options of every kernel; call only the documented entry points from Python.
OPTS = dict(cache=True, nogil=True, **_NO_REFCOUNT)


#: The env options' names as the kernels' codes (the names are validated by ``allfives_env.env.options``).
EPISODE_CODES = {"game": EPISODE_GAME, "hand": EPISODE_HAND}
REWARD_CODES = {"points": REWARD_POINTS, "zero_sum": REWARD_ZERO_SUM, "win": REWARD_WIN}


def kernel_config(config, layout, episode, reward, auto_forced):
    """The kernels' ``(cfg, fcfg, off)`` arrays for these rules (a ``RulesConfig``), env
    options and observation layout (:func:`allfives_env.env.encoders.default_layout`)."""
    cfg = np.zeros(NUM_CFG, np.int64)
    cfg[C_N], cfg[C_SIDES] = config.num_players, config.num_sides
    cfg[C_HAND_SIZE] = config.tiles_per_hand
    cfg[C_DIVISOR] = config.divisor
    cfg[C_SCORING] = HAND_SCORING_METHODS.index(config.hand_scoring)
    cfg[C_FIRST_LEADER] = FIRST_LEADER_METHODS.index(config.first_leader)
    cfg[C_EPISODE] = EPISODE_CODES[episode]
    cfg[C_REWARD] = REWARD_CODES[reward]
    cfg[C_AUTO_FORCED] = int(auto_forced)
    # the same float64 factors as DefaultEncoder, so observations agree bit for bit
    fcfg = np.array([config.target_points, 1.0 / config.target_points, 1.0 / max(1, config.boneyard_size)], np.float64)
    if tuple(layout.parts) != OBS_PARTS:
        raise ValueError(f"the observation layout {tuple(layout.parts)} is not the compiled encoder's {OBS_PARTS}")
    off = np.array([layout.offset(name) for name in OBS_PARTS], np.int64)
    return cfg, fcfg, off
