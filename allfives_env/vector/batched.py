"""The :class:`VectorAllFives` class (see the package docstring for the contract)."""

from dataclasses import dataclass, fields
from typing import NamedTuple

import numpy as np

from ..compiled import rng as compiled_rng
from ..compiled.rng import seed_streams, seed_streams_by_id
from ..compiled.state import NUM_FIELDS, SKIP, kernel_config
from ..compiled.step import reset_all, set_deal, step_all_parallel, step_all_serial
from ..env.encoders import default_layout
from ..env.options import ENV_OPTIONS, EnvOptions, UnknownOptionError, check_bool, check_count, check_seed
from ..rules.actions import NUM_ACTIONS, action_name
from ..rules.config import RulesConfig, is_int
from ..rules.game import validate_deal, validate_scores


class CompiledState(NamedTuple):
    """What :meth:`VectorAllFives.compiled_state` returns: the live kernel arrays (read-only by contract)."""

    #: (B, NUM_FIELDS) int8, each game's small fields and deal order (compiled.state columns).
    st: np.ndarray
    #: (B, 8) int64, each seat's hand and played tiles as bit masks.
    hands: np.ndarray
    #: (B, n_sides) float64, each side's score.
    scores: np.ndarray
    #: (NUM_CFG,) int64, the rules and env options as kernel codes (compiled.state ``C_*``).
    cfg: np.ndarray
    #: float64, the target and encoder factors (compiled.state ``F_*``).
    fcfg: np.ndarray

#: The most games one batch holds: up to 3.2 kB each (:meth:`VectorAllFives.memory_bytes`), so a typo such as
#: 10**12 is refused rather than ending in a MemoryError (a million games take up to 3.2 GB).
MAX_NUM_ENVS = 1_000_000


@dataclass
class VectorStep:
    """What :meth:`VectorAllFives.reset` and :meth:`VectorAllFives.step` return.

    The arrays are the environment's own output buffers, overwritten by the
    next call: use :meth:`copy` to keep them.
    """

    #: (B,) int64, the seat to move in each game (``obs``/``mask`` are its view).
    to_move: np.ndarray
    #: (B, D) float32, the default observation of the seat to move (seat-relative).
    obs: np.ndarray
    #: (B, 114) int8, the legal actions of the seat to move.
    mask: np.ndarray
    #: (B, n_players) float32, what the last step gave every seat (all seats, not only the mover).
    rewards: np.ndarray
    #: (B,) bool, the game's episode ended in the last step (then auto-reset).
    terminated: np.ndarray
    #: (B, n_sides) float64, each side's exact score in the current episode.
    scores: np.ndarray
    #: (B,) bool, ``obs`` is the first decision of a newly dealt hand (a next hand or an auto-reset).
    new_hand: np.ndarray
    #: (B, D) float32, where ``terminated``: the ended episode's observation from ``final_seat``.
    final_obs: np.ndarray
    #: (B, n_sides) float64, where ``terminated``: the ended episode's final scores.
    final_scores: np.ndarray
    #: (B,) int64, where ``terminated``: the seat ``final_obs`` belongs to (the AEC env's last agent_selection).
    final_seat: np.ndarray
    #: (B, n_players) float32, where ``terminated``: each seat's outcome of the ended episode
    #: (+1 won, -1 lost, 0 for the winners of a drawn game), what ``reward="win"`` pays.
    final_outcome: np.ndarray

    def copy(self) -> "VectorStep":
        """An independent copy of every array."""
        return VectorStep(**{f.name: getattr(self, f.name).copy() for f in fields(self)})


class VectorAllFives:
    """B games of All Fives stepped together by numba kernels.

    Args:
        num_envs: B, the number of games.
        num_players: 2, 3 or 4 (R2).
        episode: ``"game"`` or ``"hand"`` (as the AEC env).
        reward: ``"points"``, ``"zero_sum"`` or ``"win"`` (as the AEC env).
        auto_forced: resolve single-choice draws and passes inside the step (as the AEC env).
        encoder: only ``"default"`` (the :class:`~allfives_env.env.encoders.DefaultEncoder` vector).
        parallel: spread the games over numba threads (prange). Off by default: it
            pays only with idle cores; on a busy or oversubscribed machine the
            threads' barrier makes it far slower. Results are identical either way.
        **rule_options: the V1-V5 variants of :class:`~allfives_env.rules.RulesConfig`.
    """

    def __init__(self, num_envs, num_players=2, episode="game", reward="points", auto_forced=False,
                 encoder="default", parallel=False, **rule_options):
        allowed_rules = [k for k in RulesConfig.__dataclass_fields__ if k != "num_players"]
        unknown = sorted(set(rule_options) - set(allowed_rules))
        if unknown:
            allowed = ["num_envs", "num_players", *ENV_OPTIONS, "parallel", *allowed_rules]
            raise UnknownOptionError(unknown, allowed)
        options = EnvOptions(episode=episode, reward=reward, auto_forced=auto_forced)
        if encoder != "default":
            raise ValueError(f"encoder={encoder!r} is not allowed; the vector env builds only 'default' observations")
        B = check_count("num_envs", num_envs, maximum=MAX_NUM_ENVS)
        self.config = RulesConfig(num_players=num_players, **rule_options)
        self.num_envs = B
        self.num_players = n = self.config.num_players
        self.num_sides = sides = self.config.num_sides
        self.episode, self.reward_mode, self.auto_forced = episode, reward, options.auto_forced
        self.parallel = check_bool("parallel", parallel)
        self.layout = default_layout(n)
        self.observation_size = D = self.layout.size
        self.num_actions = NUM_ACTIONS

        self._cfg, self._fcfg, self._off = kernel_config(self.config, self.layout, episode, reward, self.auto_forced)

        # game state (structure of arrays, one row per game)
        self._st = np.zeros((B, NUM_FIELDS), np.int8)
        self._hands = np.zeros((B, 8), np.int64)
        self._scores = np.zeros((B, sides), np.float64)
        self._hstart = np.zeros((B, sides), np.float64)
        self._gains = np.zeros((B, sides), np.float64)
        self._rng = np.zeros(B, np.uint64)
        # output buffers
        self._out = VectorStep(
            to_move=np.zeros(B, np.int64), obs=np.zeros((B, D), np.float32),
            mask=np.zeros((B, NUM_ACTIONS), np.int8), rewards=np.zeros((B, n), np.float32),
            terminated=np.zeros(B, np.bool_), scores=np.zeros((B, sides), np.float64),
            new_hand=np.zeros(B, np.bool_), final_obs=np.zeros((B, D), np.float32),
            final_scores=np.zeros((B, sides), np.float64), final_seat=np.zeros(B, np.int64),
            final_outcome=np.zeros((B, n), np.float32),
        )
        self._no_viewers = np.zeros(0, np.int64)
        self._started = False

    # ---------------------------------------------------------------- public
    def reset(self, seed=None, deal_ids=None) -> VectorStep:
        """A new game in every env. ``seed`` (a non-negative int or None for fresh
        entropy) fixes every later deal and leader draw of every game.

        ``deal_ids`` (optional, shape (B,), non-negative integers) makes duplicate
        deals: games with equal ids draw from the same random stream, so they see the
        same sequence of deals whatever their moves: the k-th deal since this reset
        (counted over hands, and over the games an auto-reset starts) is the same
        tile order in each, and where the rules call for a drawn leader (R5/V3 at a
        game's start, R19 after a block) it is the same draw; after a domino the R19
        leader leads instead. Different ids give independent games; ``None`` is
        ``np.arange(B)`` (every game its own stream). Raises ``ValueError`` (before
        changing anything) for another shape, a non-integer dtype or a negative id."""
        ids = self._check_deal_ids(deal_ids)
        base = np.random.SeedSequence(check_seed(seed)).generate_state(1, np.uint64)[0]
        if ids is None:
            seed_streams(self._rng, base)
        else:
            seed_streams_by_id(self._rng, base, ids)
        out = self._out
        out.rewards[:] = 0.0
        out.terminated[:] = False
        reset_all(self._st, self._hands, self._scores, self._hstart, self._rng, self._cfg, self._fcfg,
                    self._off, out.to_move, out.obs, out.mask, out.scores, out.new_hand)
        self._started = True
        return out

    def step(self, actions, final_viewers=None) -> VectorStep:
        """Apply ``actions[b]`` (an action id of the seat to move) in every game ``b``;
        ``actions[b] == SKIP`` (-1) leaves game ``b`` as it is (its ``rewards`` row is 0,
        ``terminated`` and ``new_hand`` False), for callers that move only some games.

        ``final_viewers`` (optional, (B,) int64 seats, -1 for the default): the seat that
        sees each game's ``final_obs`` when its episode ends (default: the seat to move,
        the AEC env's last ``agent_selection``), e.g. a learner's own final view.

        Raises ``ValueError`` (wrong shape, or an illegal action, naming the game,
        its seat and the action) or ``TypeError`` (not an integer array); on an
        error no game has moved."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = self._check_actions(actions)
        viewers = self._no_viewers if final_viewers is None else self._check_viewers(final_viewers)
        out = self._out
        kernel = step_all_parallel if self.parallel else step_all_serial
        bad = kernel(actions, self._st, self._hands, self._scores, self._hstart, self._gains, self._rng,
                     self._cfg, self._fcfg, self._off, out.to_move, out.obs, out.mask, out.rewards,
                     out.terminated, out.scores, out.new_hand, out.final_obs, out.final_scores,
                     out.final_seat, out.final_outcome, viewers)
        if bad >= 0:
            self._raise_illegal(int(bad), int(actions[bad]))
        return out

    #: The arrays that hold every game's state (with the output buffers: everything a step depends on).
    STATE_ARRAYS = ("_st", "_hands", "_scores", "_hstart", "_gains", "_rng")

    def state_dict(self) -> dict:
        """Copies of every game's state and of the last output, as plain numpy arrays (no objects):
        :meth:`load_state_dict` on an env with the same options continues exactly."""
        return {"games": {name[1:]: getattr(self, name).copy() for name in self.STATE_ARRAYS},
                "out": {f.name: getattr(self._out, f.name).copy() for f in fields(VectorStep)},
                "started": bool(self._started),
                "options": {"cfg": self._cfg.copy(), "fcfg": self._fcfg.copy()}}

    def load_state_dict(self, state: dict) -> None:
        """Continue from :meth:`state_dict`'s output; a state of other shapes or dtypes (another
        ``num_envs`` or player count) or of other rules or env options is refused before anything
        changes (a state saved before the options were recorded is checked by its shapes alone)."""
        try:
            pairs = [(getattr(self, name), state["games"][name[1:]]) for name in self.STATE_ARRAYS]
            pairs += [(getattr(self._out, f.name), state["out"][f.name]) for f in fields(VectorStep)]
            started = state["started"]
        except (KeyError, TypeError) as exc:
            raise ValueError(f"not a VectorAllFives state (missing {exc})") from None
        for mine, theirs in pairs:
            if not isinstance(theirs, np.ndarray) or theirs.shape != mine.shape or theirs.dtype != mine.dtype:
                raise ValueError(f"a VectorAllFives state of another shape: {getattr(theirs, 'shape', theirs)} "
                                 f"{getattr(theirs, 'dtype', '')} where this env holds {mine.shape} {mine.dtype}")
        self._check_options(state.get("options"))
        for mine, theirs in pairs:
            mine[...] = theirs
        self._started = bool(started)

    def _check_options(self, options):
        if options is None:
            return
        try:
            same = all(np.array_equal(options[name], getattr(self, f"_{name}")) for name in ("cfg", "fcfg"))
        except (KeyError, TypeError):
            same = False
        if not same:
            raise ValueError(f"a VectorAllFives state of other rules or options; this env plays {self.config} "
                             "with its own episode, reward and forced-move options: load a state saved by an env "
                             "made with the same ones")

    def current(self) -> VectorStep:
        """The output buffers as they stand (after reset/step/set_position)."""
        if not self._started:
            raise RuntimeError("call reset() before current()")
        return self._out

    def legal_actions(self, index) -> list:
        """The legal action ids of the seat to move in game ``index``, ascending."""
        if not self._started:
            raise RuntimeError("call reset() before legal_actions()")
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < self.num_envs:
            raise ValueError(f"game index {index!r} is not allowed; allowed: integers 0..{self.num_envs - 1}")
        return [int(a) for a in np.flatnonzero(self._out.mask[index])]

    def set_position(self, indices, hands, boneyards, leaders, scores=None) -> VectorStep:
        """Start a hand from a given deal in the games ``indices`` (the rest are untouched).

        ``hands[i]`` holds one tile-id list per seat, ``boneyards[i]`` the boneyard in
        draw order, ``leaders[i]`` the leading seat and ``scores[i]`` each side's
        score (``None``: zeros, a new game). Equivalent to the AEC env's
        ``reset(options={"hands", "boneyard", "leader", "scores"})``; with the
        current scores it is also a next hand of the running game (R19 aside).
        Those games' ``rewards``/``terminated`` keep their last values."""
        if not self._started:
            raise RuntimeError("call reset() before set_position()")
        # as given, not through numpy: [0, True] would become [0, 1]
        indices = list(indices) if isinstance(indices, (list, tuple)) else list(np.atleast_1d(indices))
        if not (len(hands) == len(boneyards) == len(leaders) == len(indices)):
            raise ValueError("indices, hands, boneyards and leaders need one entry per game")
        if scores is not None and len(scores) != len(indices):
            raise ValueError("scores needs one entry per game (or None)")
        # every entry is checked before any game changes: a refused call leaves all games as they were
        deals = [self._checked_deal(k, b, hands, boneyards, leaders, scores) for k, b in enumerate(indices)]
        games = [b for b, *_ in deals]
        if len(set(games)) < len(games):
            twice = sorted({b for b in games if games.count(b) > 1})
            raise ValueError(f"game(s) {twice} given more than once in indices; allowed: each game once a call")
        out = self._out
        for b, order, leader, start in deals:
            set_deal(b, order, leader, start, self._st, self._hands, self._scores, self._hstart, self._cfg,
                     self._fcfg, self._off, out.to_move, out.obs, out.mask, out.scores, out.new_hand)
        return out

    def _checked_deal(self, k, b, hands, boneyards, leaders, scores):
        """Entry ``k`` of :meth:`set_position` as ``(game, tile order, leader, scores)``, or ValueError."""
        n = self.num_players
        if not is_int(b) or not 0 <= b < self.num_envs:
            raise ValueError(f"game index {b} is not allowed; allowed: an integer 0..{self.num_envs - 1}")
        hand_lists, bone = validate_deal(self.config, hands[k], boneyards[k], None)
        leader = leaders[k]
        if not is_int(leader) or not 0 <= leader < n:
            raise ValueError(f"leader={leader!r} of game {b} is not a seat; allowed 0..{n - 1}")
        start = [0.0] * self.num_sides if scores is None or scores[k] is None else \
            validate_scores(self.config, scores[k])
        order = np.array([t for hand in hand_lists for t in hand] + bone, np.int64)
        return int(b), order, int(leader), np.array(start, np.float64)

    def views(self, obs) -> dict:
        """Named views of observations (``views(out.obs)["hand"]`` has shape (B, 28))."""
        return self.layout.views(obs)

    def compiled_state(self) -> "CompiledState":
        """The state and config arrays themselves (not copies), for compiled agents
        (e.g. :func:`allfives_env.agents.heuristic_compiled.heuristic_actions`) that read a
        position without the Python engine; do not modify them. Layout:
        :mod:`allfives_env.compiled.state`."""
        return CompiledState(self._st, self._hands, self._scores, self._cfg, self._fcfg)

    def memory_bytes(self) -> int:
        """Bytes held by the state and output arrays (the per-game cost times B)."""
        arrays = [self._st, self._hands, self._scores, self._hstart, self._gains, self._rng]
        arrays += [getattr(self._out, f.name) for f in fields(self._out)]
        return int(sum(a.nbytes for a in arrays))

    # ------------------------------------------------------------- internals
    def _check_actions(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions has shape {actions.shape}; expected ({self.num_envs},), one action per game")
        if actions.dtype.kind not in "iu":
            raise TypeError(f"actions has dtype {actions.dtype}; expected an integer array of action ids "
                            f"0..{NUM_ACTIONS - 1} (or SKIP = -1)")
        if actions.dtype == np.int64:  # the kernel names an out-of-range id as it names an illegal one
            return actions
        if actions.size and (actions.min() < SKIP or actions.max() >= NUM_ACTIONS):  # before a cast wraps it
            b = int(np.flatnonzero((actions < SKIP) | (actions >= NUM_ACTIONS))[0])
            _raise_out_of_range(b, actions[b])
        return actions.astype(np.int64)

    def _check_viewers(self, viewers):
        viewers = np.asarray(viewers)
        if viewers.shape != (self.num_envs,) or viewers.dtype.kind not in "iu":
            raise ValueError(f"final_viewers has shape {viewers.shape} and dtype {viewers.dtype}; expected "
                             f"({self.num_envs},) integer seats (-1 for the seat to move)")
        if viewers.size and (viewers.min() < -1 or viewers.max() >= self.num_players):
            raise ValueError(f"final_viewers holds a seat outside -1..{self.num_players - 1}")
        return viewers if viewers.dtype == np.int64 else viewers.astype(np.int64)

    def _check_deal_ids(self, deal_ids):
        """``deal_ids`` as a uint64 array (None stays None), or ValueError naming what is allowed."""
        if deal_ids is None:
            return None
        ids = np.asarray(deal_ids)
        if ids.shape != (self.num_envs,):
            raise ValueError(f"deal_ids has shape {ids.shape}; expected ({self.num_envs},), one deal id per game")
        if ids.dtype.kind not in "iu":
            raise ValueError(f"deal_ids has dtype {ids.dtype}; expected an integer array of non-negative deal ids")
        if ids.size and ids.min() < 0:
            raise ValueError(f"deal_ids holds {int(ids.min())}; allowed: non-negative integers")
        return ids.astype(np.uint64)

    def _raise_illegal(self, b, action):
        if not SKIP <= action < NUM_ACTIONS:  # int64 ids are range-checked by the kernel, for speed
            _raise_out_of_range(b, action)
        seat = int(self._out.to_move[b])
        legal = [action_name(a) for a in self.legal_actions(b)]
        raise ValueError(f"game {b}: action {action} ({action_name(action)}) is not legal for seat {seat}; "
                         f"legal now: {self.legal_actions(b)} = {legal}; no game was stepped")


def _raise_out_of_range(b, action):
    raise ValueError(f"game {b}: action {action} is out of range; allowed: action ids 0..{NUM_ACTIONS - 1} "
                     "(or SKIP = -1); no game was stepped")


def random_legal_actions(mask, rng_state, out=None) -> np.ndarray:
    """A uniformly random legal action per row of ``mask`` (B, 114), drawn from the
    per-row uint64 streams ``rng_state`` (B,) (made by :func:`make_rng_state`), in one compiled
    pass, for benchmarks and rollouts. ``out``: an int64
    array (B,) to write into. Shapes and dtypes are checked (the kernel trusts them: a short stream
    array would be written past its end)."""
    _check_mask(mask)
    rows = mask.shape[0]
    _check_row_array("rng_state", rng_state, rows, np.uint64, f"make_rng_state(seed, {rows})")
    if out is None:
        out = np.empty(rows, np.int64)
    _check_row_array("out", out, rows, np.int64, f"np.empty({rows}, np.int64)")
    return compiled_rng.random_legal_actions(mask, rng_state, out)


def _check_mask(mask):
    if not isinstance(mask, np.ndarray) or mask.ndim != 2 or mask.shape[1] != NUM_ACTIONS \
            or mask.dtype.kind not in "biu":
        shown = f"shape {mask.shape}, dtype {mask.dtype}" if isinstance(mask, np.ndarray) else type(mask).__name__
        raise ValueError(f"mask is {shown}; expected a (B, {NUM_ACTIONS}) array of 0/1 (bool or integers), "
                         "as a step's out.mask")


def _check_row_array(name, array, rows, dtype, example):
    if not isinstance(array, np.ndarray) or array.shape != (rows,) or array.dtype != dtype \
            or not array.flags.writeable:
        shown = (f"shape {array.shape}, dtype {array.dtype}" + ("" if array.flags.writeable else ", read-only")
                 if isinstance(array, np.ndarray) else type(array).__name__)
        raise ValueError(f"{name} is {shown}; expected a writable ({rows},) {np.dtype(dtype).name} array, one "
                         f"entry per row of the mask, e.g. {example}")


def make_rng_state(seed, num) -> np.ndarray:
    """``num`` independent SplitMix64 streams from ``seed`` for :func:`random_legal_actions`."""
    rng = np.zeros(check_count("num", num, minimum=0), np.uint64)
    seed_streams(rng, _entropy(seed))
    return rng


def _entropy(seed) -> np.uint64:
    """One 64-bit word from ``seed`` (a whole number >= 0, or a sequence of them), or ValueError."""
    allowed = "a whole number >= 0, or a list of them"
    if _holds_a_boolean(seed):  # SeedSequence would read True as 1
        raise ValueError(f"seed={seed!r} is not allowed; allowed: {allowed}")
    try:
        return np.random.SeedSequence(seed).generate_state(1, np.uint64)[0]
    except (TypeError, ValueError):
        raise ValueError(f"seed={seed!r} is not allowed; allowed: {allowed}") from None


def _holds_a_boolean(seed) -> bool:
    """Whether ``seed`` is a boolean or a list, tuple or array holding one."""
    if isinstance(seed, np.ndarray):
        return seed.dtype == np.bool_
    entries = seed if isinstance(seed, (list, tuple)) else (seed,)
    return any(isinstance(entry, (bool, np.bool_)) for entry in entries)
