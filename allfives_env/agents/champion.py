"""The ``champion`` spec: the compiled search with heuristic rollouts, plus a learned policy's
value one move ahead.

Each placement gets two estimates, added:

* the compiled search's value (:mod:`.search_compiled` with heuristic rollouts,
  :data:`CHAMPION_SAMPLES` worlds): the points its side gains over the hand's
  rest, plus ``win_value`` for a won game, plus the heuristic prior
  (:data:`CHAMPION_PRIOR_WEIGHT`: with 4 players only);
* with ``value=PATH`` (a policy file; by default :data:`CHAMPION_VALUE`: the shipped
  ``checkpoints/ppo_2p.pt``; for 3 players ``champion_value_3p.pt``, the 3-player policy shipped
  before the lookahead one; for 4 players
  ``champion_value_4p.pt``, the 4-player policy shipped before (pinned as
  ``benchmark_v1/ppo_4p.pt``) with its value refit to this
  return by :mod:`training.value_fit`), a one-move
  look-ahead through the policy's eyes (:class:`LeafValues`): in ``worlds``
  (:data:`CHAMPION_WORLDS`) sampled worlds the placement is made, every other seat answers
  (forced draws and passes played, a new hand dealt when one ends) until the
  champion's next real decision, where the policy's value head scores the
  position; points scored on the way and a game's end count as in training.
  The answers are ``replies`` (:data:`CHAMPION_REPLIES`): the policy's most
  likely moves, or the heuristic agent's, which cost no network call, so more
  worlds fit in the same time. The mean, ``value_weight`` points per unit of
  return, is added to the search's value.

With 4 players both draw their worlds weighted by what the partner's placements this hand say about
its hand (``read``, :data:`CHAMPION_READ`; :mod:`.hand_reading`): the partner is the champion's own
side, so this assumes nothing about the opponents.

The two err in different places: the rollouts play the whole hand with a
fixed heuristic, the value is learned from play but only one move deep. The
budget keeps a game under a second of CPU; the measurements that chose it
are in docs/history.md.
"""

import importlib.util
import os

import numpy as np
from numba import njit
from threadpoolctl import ThreadpoolController

from ..compiled.encode import encode
from ..compiled.rules import apply_action, deal_random, legal_placements
from ..compiled.state import F_TARGET, GAME_OVER, HAND_OVER, NUM_FIELDS, OPTS, TO_MOVE, WINNERS, kernel_config
from ..compiled.step import play_forced, side_outcome
from ..env.encoders import default_layout
from ..env.options import check_bool, check_count, check_number
from ..rules.actions import DRAW, NUM_ACTIONS
from ..vector.batched import make_rng_state
from .greedy import winning_placement
from .hand_reading import HandReader
from .registry import resolve_policy_path, shipped_file
from .search import MAX_SAMPLES, SearchAgent
from .search_compiled import (
    HEURISTIC_WEIGHTS,
    copy_game,
    draw_world,
    empty_bank,
    heuristic_move,
    load_view,
    world_from_bank,
    zero_sum_points,
)

#: Rollout worlds per move by player count.
CHAMPION_SAMPLES = {2: 128, 3: 128, 4: 128}
#: The shipped policy file whose value the champion adds, by player count (None: the search alone); read from
#: the package (registry.shipped_file), never from the working directory.
CHAMPION_VALUE = {2: "checkpoints/ppo_2p.pt", 3: "checkpoints/champion_value_3p.pt", 4: "checkpoints/champion_value_4p.pt"}
#: Look-ahead worlds per move by player count.
CHAMPION_WORLDS = {2: 32, 3: 16, 4: 48}
#: The heuristic prior's weight by player count (``prior_weight`` of ``search``): with 2 and 3 players
#: the champion plays better without it (docs/history.md).
CHAMPION_PRIOR_WEIGHT = {2: 0.0, 3: 0.0, 4: 1.0}
#: Who answers in the look-ahead by player count: the policy's most likely moves, or the heuristic's.
CHAMPION_REPLIES = {2: "policy", 3: "policy", 4: "heuristic"}
REPLIES = ("policy", "heuristic")
#: Hand reading (:mod:`.hand_reading`, the placements read as a softened heuristic agent's): off, the
#: partner's alone (4 players; none to read with 2 or 3), or every other seat's (an opponent model).
READS = ("off", "partner", "heuristic")
#: Hand reading by player count: the 4-player champion reads its partner (docs/history.md).
CHAMPION_READ = {2: "off", 3: "off", 4: "partner"}
#: Points per unit of the policy's return: the shipped files were trained on 0.02 per point.
POINTS_PER_RETURN = 50.0
#: The training discount of the shipped files: the next decision's value counts this much.
GAMMA = 0.99
#: Trial rows allocated per world: one per possible placement.
_ROWS_PER_WORLD = DRAW
# what a trial row is waiting for
_OTHER_SEAT, _OWN_DECISION, _GAME_OVER = 0, 1, 2


@njit(**OPTS)
def start_trials(st, hands, scores, seat, n, worlds, legal, n_legal, rng, tiles, no_forbid, cfg, target,
                 xst, xhands, xscores, xgains, bst, bhands, bscores, bank_rows):
    """Rows ``w * n_legal + k`` := world ``w`` (drawn from what ``seat`` knows in game 0, or with
    ``bank_rows`` not empty row ``bank_rows[w]`` of the bank ``bst``/``bhands``/``bscores``) after
    placement ``legal[k]``: every placement of a world meets the same hidden tiles."""
    for w in range(worlds):
        base = w * n_legal
        if bank_rows.shape[0]:
            world_from_bank(bst, bhands, bscores, bank_rows[w], xst, xhands, xscores, base, rng, 0)
        else:
            draw_world(st, hands, scores, 0, seat, n, xst, xhands, xscores, base, rng, 0, tiles, 50, no_forbid,
                       no_forbid)
        for k in range(1, n_legal):
            copy_game(xst, xhands, xscores, base, xst, xhands, xscores, base + k)
        for k in range(n_legal):
            apply_action(xst, base + k, xhands, xscores, xgains, cfg, target, legal[k])


@njit(**OPTS)
def advance_trials(rows, xst, xhands, xscores, xhstart, xgains, rng, cfg, target, seat, waiting, status):
    """Play every waiting row's forced draws and passes, dealing the next hand when one ends (from
    ``rng[row]``), until a real decision or the game's end; set its status (``_OTHER_SEAT`` stays
    waiting for the policy's answer). Returns how many rows wait for an answer."""
    need = 0
    for r in range(rows):
        if not waiting[r]:
            continue
        while not xst[r, GAME_OVER]:
            if xst[r, HAND_OVER]:
                deal_random(xst, r, xhands, xscores, xhstart, rng, cfg)
            play_forced(xst, r, xhands, xscores, xgains, cfg, target)
            if not xst[r, HAND_OVER]:
                break
        if xst[r, GAME_OVER]:
            status[r], waiting[r] = _GAME_OVER, 0
        elif xst[r, TO_MOVE] == seat:
            status[r], waiting[r] = _OWN_DECISION, 0
        else:
            status[r] = _OTHER_SEAT
            need += 1
    return need


@njit(**OPTS)
def encode_rows(rows, xst, xhands, xscores, cfg, fcfg, off, obs, mask):
    """The mover's observation and legal mask of each of ``rows`` (same row of ``obs``/``mask``)."""
    for i in range(rows.shape[0]):
        r = rows[i]
        encode(xst, r, xhands, xscores, xst[r, TO_MOVE], True, cfg, fcfg, off, obs, mask)


@njit(**OPTS)
def apply_rows(rows, actions, xst, xhands, xscores, xgains, cfg, target):
    for i in range(rows.shape[0]):
        apply_action(xst, rows[i], xhands, xscores, xgains, cfg, target, actions[i])


@njit(**OPTS)
def heuristic_answers(rows, xst, xhands, xscores, xgains, cfg, target, legal, values, lst, lhands, lscores, replies):
    """Every row in ``rows`` plays the heuristic agent's move (:func:`.search_compiled.heuristic_move`;
    ``legal``/``values``, row 0 of ``lst``/``lhands``/``lscores`` and ``replies`` are its scratch)."""
    for i in range(rows.shape[0]):
        r = rows[i]
        action = heuristic_move(xst, r, xhands, xscores, cfg, target, HEURISTIC_WEIGHTS, legal, values, lst, lhands,
                                lscores, replies)
        apply_action(xst, r, xhands, xscores, xgains, cfg, target, action)


@njit(**OPTS)
def trial_returns(rows, xst, xscores, side, sides, before, points, out):
    """``out[row]``: ``points`` times the side's zero-sum points since ``before`` (own gain minus the
    other sides' mean), plus 1 for a won game, minus 1 for a lost one (0 for a drawn one)."""
    for r in range(rows):
        out[r] = points * zero_sum_points(xscores, r, sides, side, before)
        if xst[r, GAME_OVER]:
            out[r] += side_outcome(xst[r, WINNERS], side)


def checked_replies(replies):
    """``replies`` as given: None (the default by player count) or one of :data:`REPLIES`."""
    if replies not in (None,) + REPLIES:
        raise ValueError(f"replies={replies!r} is not allowed; allowed: {' or '.join(map(repr, REPLIES))} (the "
                         f"default by player count: {CHAMPION_REPLIES})")
    return replies


class LeafValues:
    """The one-move look-ahead of a policy file for the seat to move (see the module docstring).

    ``values(view)`` -> ``(placements, values)`` (int64, float64 arrays; values in units of the
    policy's return). Needs torch to read the file, once per process."""

    def __init__(self, path, worlds=None, replies=None):
        try:
            import torch  # noqa: F401  (reads the file, once per process)
        except ImportError:
            raise ValueError(f"champion: the value of {path!r} needs torch, which is not installed; install it "
                             'with: pip install -e ".[train]", or play champion:value=none (the search alone)') from None
        from .ppo.agent import CheckpointError, check_policy_file, load_numpy_policy, with_inference

        try:
            check_policy_file(path, " (give value=PATH, a policy file, or value=none for the search alone)")
        except CheckpointError as exc:
            raise CheckpointError(f"champion: {exc}") from None
        self.path = path
        self.rules, features, self.policy = load_numpy_policy(path)
        self.features = with_inference(features, False, path)  # no opponent model, as ppo:PATH by default
        # None: CHAMPION_WORLDS of the player count
        self._worlds = None if worlds is None else check_count("worlds", worlds, maximum=MAX_SAMPLES)
        self._replies = checked_replies(replies)  # None: CHAMPION_REPLIES of the player count
        # the batched network runs on one BLAS thread: threaded matrix products of this size spin
        # the other cores for nothing (docs/history.md measures it)
        self._blas = ThreadpoolController()
        self._shape = None
        # scratch for one decision: its placements, the world sampler's tiles, no exclusions (no opponent model)
        self.legal, self.tiles, self.no_forbid = np.zeros(DRAW, np.int64), np.zeros(28, np.int64), np.zeros(4, np.int64)
        self.no_bank = None  # set by reset: an empty bank of worlds (each trial draws its own)

    def reset(self, config, rng, any_rules=False):
        from .ppo.features import PolicyInput
        from .ppo.policy_file import check_player_count, check_rules

        if any_rules:
            check_player_count(self.path, self.rules.num_players, config.num_players)
        else:
            check_rules(self.path, self.rules, config, "champion:any_rules=true (or value=none, the search alone)")
        n, sides = config.num_players, config.num_sides
        self.worlds = self._worlds or CHAMPION_WORLDS[n]
        self.replies = self._replies or CHAMPION_REPLIES[n]
        layout = default_layout(n)
        self.cfg, self.fcfg, self.off = kernel_config(config, layout, "game", "points", False)
        self.config = config
        self.input = PolicyInput(self.features, n, config.divisor)
        self.st, self.hands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.scores = np.zeros((1, sides), np.float64)
        self.no_bank = empty_bank(sides)
        self.world_rng = make_rng_state(int(rng.integers(2 ** 62)), 1)
        rows = self.worlds * _ROWS_PER_WORLD
        self.deal_rng = make_rng_state(int(rng.integers(2 ** 62)), rows)
        if self._shape != (rows, sides, layout.size):  # the trial rows: kept between games
            self._shape = (rows, sides, layout.size)
            self._allocate(rows, sides, layout.size)

    def _allocate(self, rows, sides, obs_size):
        self.xst, self.xhands = np.zeros((rows, NUM_FIELDS), np.int8), np.zeros((rows, 8), np.int64)
        self.xscores, self.xhstart, self.xgains = (np.zeros((rows, sides), np.float64) for _ in range(3))
        self.waiting, self.status = np.zeros(rows, np.int8), np.zeros(rows, np.int8)
        self.obs = np.zeros((rows, obs_size), np.float32)
        self.mask = np.zeros((rows, NUM_ACTIONS), np.int8)
        self.returns = np.zeros(rows, np.float64)
        # the heuristic answers' scratch
        self.h_legal, self.h_values = np.zeros(DRAW, np.int64), np.zeros(DRAW, np.float64)
        self.h_st, self.h_hands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.h_scores, self.h_replies = np.zeros((1, sides), np.float64), np.zeros(28, np.float64)

    def values(self, view, reader=None):
        """``reader``: a :class:`~.hand_reading.HandReader` that has read ``view``: the worlds are drawn
        from its weighted bank instead of uniformly."""
        with self._blas.limit(limits=1, user_api="blas"):
            return self._values(view, reader)

    def _values(self, view, reader):
        load_view(view, self.st, self.hands, self.scores)
        n_legal = legal_placements(self.st, 0, self.hands, self.legal)
        legal = self.legal[:n_legal].copy()
        bst, bhands, bscores, rows = self.no_bank if reader is None else reader.bank(self.worlds)
        start_trials(self.st, self.hands, self.scores, view.seat, view.num_players, self.worlds, legal, n_legal,
                     self.world_rng, self.tiles, self.no_forbid, self.cfg, self.fcfg[F_TARGET], self.xst,
                     self.xhands, self.xscores, self.xgains, bst, bhands, bscores, rows)
        q = self.trial_values(self.worlds * n_legal, view.seat, view.side, view.scores)
        return legal, q.reshape(self.worlds, n_legal).mean(axis=0)

    def trial_values(self, rows, seat, side, before) -> np.ndarray:
        """The value for ``seat`` (of ``side``; the scores were ``before``) of each of the first
        ``rows`` trial rows, where it has just moved: the other seats answer until its next real
        decision, whose value the policy estimates, or the game's end."""
        target = self.fcfg[F_TARGET]
        self.waiting[:rows] = 1
        while self._advance(rows, seat, target):
            self._answer(np.flatnonzero(self.waiting[:rows]), target)
        trial_returns(rows, self.xst, self.xscores, side, self.config.num_sides, np.asarray(before, np.float64),
                      1.0 / POINTS_PER_RETURN, self.returns)
        q = self.returns[:rows].copy()
        leaves = np.flatnonzero(self.status[:rows] == _OWN_DECISION)
        if len(leaves):
            q[leaves] += GAMMA * self.policy.values(self._inputs(leaves))
        return q

    def _advance(self, rows, seat, target) -> int:
        return advance_trials(rows, self.xst, self.xhands, self.xscores, self.xhstart, self.xgains, self.deal_rng,
                              self.cfg, target, seat, self.waiting, self.status)

    def _inputs(self, rows):
        encode_rows(rows, self.xst, self.xhands, self.xscores, self.cfg, self.fcfg, self.off, self.obs, self.mask)
        return self.input(self.obs[rows], self.mask[rows])

    def _answer(self, rows, target):
        """Every row in ``rows`` plays the policy's most likely legal action, or the heuristic's move."""
        if self.replies == "heuristic":
            heuristic_answers(rows, self.xst, self.xhands, self.xscores, self.xgains, self.cfg, target, self.h_legal,
                              self.h_values, self.h_st, self.h_hands, self.h_scores, self.h_replies)
            return
        x = self._inputs(rows)
        mask = self.mask[rows]
        logits = self.policy.batch_logits(x, mask)
        logits[mask == 0] = -np.inf
        actions = np.argmax(logits, axis=1).astype(np.int64)
        apply_rows(rows, actions, self.xst, self.xhands, self.xscores, self.xgains, self.cfg, target)


def _preload_default_values():
    """Read the default files now, where they exist and torch is installed: an arena builds every agent
    in its own process first, and the workers it forks then reuse what was read instead of calling
    torch after a fork. Where they cannot be read, :meth:`ChampionAgent.reset` says why."""
    if importlib.util.find_spec("torch") is None:
        return
    from .ppo.agent import load_numpy_policy

    for path in CHAMPION_VALUE.values():
        if path is not None and os.path.isfile(shipped_file(path)):
            load_numpy_policy(shipped_file(path))


class ChampionAgent(SearchAgent):
    """champion: the strongest player shipped: the compiled search with heuristic rollouts, plus a
    shipped policy's value one move ahead, under a second of CPU per game. Options:
    ``samples``, ``prior_weight`` (default :data:`CHAMPION_PRIOR_WEIGHT`), ``win_value`` as for
    ``search``; ``value`` (a policy file, or none), ``worlds``, ``replies`` (``policy`` or
    ``heuristic``) and ``value_weight`` for the look-ahead;
    ``read`` for how both draw their worlds (hand reading, :mod:`.hand_reading`; default
    :data:`CHAMPION_READ`): ``off``, ``partner`` (the partner's placements alone) or ``heuristic``
    (every other seat's: an opponent model, so never a default); ``any_rules=true`` adds the value
    file under other scoring rules than it was trained for (refused by default)."""

    name = "champion"
    default_samples = CHAMPION_SAMPLES
    #: Options whose ``none`` in a spec would read as the default, not "off": refused there (registry).
    spec_refuses_none = {"read": "'off', 'partner' or 'heuristic'", "replies": "'policy' or 'heuristic'"}

    def __init__(self, samples=None, prior_weight=None, win_value=100.0, value="default", worlds=None,
                 value_weight=None, replies=None, read=None, any_rules=False):
        if value is not None and not isinstance(value, (str, os.PathLike)):  # value=true read as a boolean
            raise ValueError(f"value={value!r} is not allowed; allowed: a policy file, default or none (the "
                             "search alone)")
        if value is None:  # the search alone: the look-ahead's options would change nothing
            given = {"worlds": worlds, "value_weight": value_weight, "replies": replies,
                     "any_rules": any_rules or None}
            named = [name for name, option in given.items() if option is not None]
            if named:
                raise ValueError(f"{', '.join(named)}: options of the policy's look-ahead, which value=none turns "
                                 "off; allowed with value=none: samples, prior_weight, win_value, read")
        if read not in (None,) + READS:
            raise ValueError(f"read={read!r} is not allowed; allowed: 'off', 'partner' (the partner's placements "
                             "read as the heuristic agent's, softened) or 'heuristic' (every other seat's); the "
                             f"default by player count: {CHAMPION_READ}")
        super().__init__(samples=samples, win_value=win_value, engine="compiled", rollout="heuristic",
                         prior_weight=1.0 if prior_weight is None else prior_weight)
        self._prior_weight_option = prior_weight  # None: CHAMPION_PRIOR_WEIGHT of the player count
        self._read_option = read  # None: CHAMPION_READ of the player count
        self.read = read
        self.reader = None
        self.value_weight = check_number("value_weight", POINTS_PER_RETURN if value_weight is None else value_weight,
                                         minimum=0.0)
        worlds = None if worlds is None else check_count("worlds", worlds, maximum=MAX_SAMPLES)
        self._value_option, self._worlds, self._replies = value, worlds, checked_replies(replies)
        self.any_rules = check_bool("any_rules", any_rules)
        self._leaf_values = {}
        if value not in ("default", None):  # a given file is checked (and read) now, before any game
            self._leaf_values[None] = LeafValues(resolve_policy_path(str(value)), worlds, replies)
        elif value == "default":
            _preload_default_values()
        self.leaf_values = None

    @staticmethod
    def unnamed_files(num_players, options) -> dict:
        """``{name: path}`` of the file a spec reads without naming it: the shipped value file of
        :data:`CHAMPION_VALUE` when ``value`` is left out (a benchmark card hashes it)."""
        name = CHAMPION_VALUE.get(num_players) if options.get("value", "default") == "default" else None
        return {} if name is None else {name: shipped_file(name)}

    def _leaf_values_for(self, players):
        key = None if self._value_option != "default" else players
        if key not in self._leaf_values:
            path = CHAMPION_VALUE[players] if self._value_option == "default" else None
            self._leaf_values[key] = (None if path is None else
                                      LeafValues(shipped_file(path), self._worlds, self._replies))
        return self._leaf_values[key]

    def reset(self, seat, config, rng):
        if self._prior_weight_option is None:  # read by the search that super().reset builds
            self.prior_weight = CHAMPION_PRIOR_WEIGHT[config.num_players]
        super().reset(seat, config, rng)
        self.leaf_values = self._leaf_values_for(config.num_players)
        if self.leaf_values is not None:
            self.leaf_values.reset(config, rng, self.any_rules)
        n = config.num_players
        self.read = self._read_option or CHAMPION_READ[n]
        self.reader = None
        # read=partner with 2 or 3 players has no one to read: no reader, so it plays as off
        if self.read == "heuristic" or (self.read == "partner" and n == 4):  # its stream after the others'
            self.reader = HandReader(config.num_sides, int(rng.integers(2 ** 62)), partner_only=self.read == "partner")

    def act(self, view, legal_actions):
        # A placement that reaches the target wins now. The look-ahead's value of playing on can exceed
        # a win's return (points plus the win, as the policy was trained), so it is never weighed.
        winning = winning_placement(view, legal_actions)
        return winning if winning is not None else super().act(view, legal_actions)

    def action_values(self, view, legal_actions) -> list:
        if self.reader is None:
            values = super().action_values(view, legal_actions)
        else:
            search = self._compiled
            self.reader.read(view, search.cfg, search.fcfg[F_TARGET])
            values = search.action_values(view, list(legal_actions), self.reader.bank(self._samples))
        if self.leaf_values is None:
            return values
        placements, leaf = self.leaf_values.values(view, self.reader)
        by_action = dict(zip(placements.tolist(), leaf.tolist()))
        return [v + self.value_weight * by_action[a] for v, a in zip(values, legal_actions)]
