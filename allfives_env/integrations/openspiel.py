"""All Fives as an OpenSpiel Python game, and OpenSpiel bots as arena agents.

Needs the ``openspiel`` extra (``pip install -e ".[openspiel]"``; tested with
open_spiel 2.0.2). Importing this module registers the game::

    import pyspiel
    import allfives_env.integrations.openspiel  # registers "python_allfives"

    game = pyspiel.load_game("python_allfives", {"players": 4, "hand_scoring": "penalty"})

Game parameters (every one has the default shown):

* ``players`` (2): 2, 3 or 4 (R2; 4 plays as two partnerships).
* the rule variants of :class:`~allfives_env.rules.RulesConfig`: ``hand_size``
  ("standard"), ``target`` (0 = the R3 target of the player count; an integer
  for ``load_game``, whose type check refuses 150.0 as it refuses 150 for a
  float parameter; ``AllFivesGame(params)`` also takes a fractional target),
  ``first_leader`` ("random"), ``hand_scoring`` ("bonus"), ``divisor`` (5).
* ``episode`` ("game"): "game" (hands follow one another until a side reaches
  the target) or "hand" (one hand).
* ``reward`` ("points"): as the AEC env's option. "points": a seat gets its
  side's score (raw points, ``GENERAL_SUM``); "zero_sum": its side's score
  minus the mean of the other sides' scores (``ZERO_SUM``); "win": at the end
  +1 to the winning side, -1 to every other side, 0 to the sides of a drawn
  game (R25); a hand episode ranks the sides by the points of that hand
  (``ZERO_SUM`` with 2 sides, ``GENERAL_SUM`` with 3 players).
* ``reward_scale`` (1.0): multiplies every reward and return (search bots
  want returns near [-1, 1]).
* ``max_hands`` (0 = auto: ``max(100, 2 * sides * target / 5)``): OpenSpiel
  needs a finite game length, and a hand can end with no points at all (a
  tied block), so a game still unfinished after this many hands ends there
  and is scored as it stands (:meth:`AllFivesState.hand_cap_reached` says
  so). No rule of the contract has such a cap. With the auto value and the
  default scoring it is not reached; with ``hand_scoring="penalty"`` sides
  can lose points and games run long, so there the cap ends some of them
  (how often: docs/integrations.md).

Mapping onto OpenSpiel. Every legality, transition and score is the engine's
(:class:`~allfives_env.rules.game.Game`); this module only turns the engine's
random deal and draws into explicit chance nodes:

* *Leader* (R5, V3, R19 after a block): one chance node, outcome = the seat,
  probability ``1/n``. V3 ``heaviest_tile`` gives the same law: each seat draws
  a different tile and heaviness is a strict order, so each seat is equally
  likely to hold the heaviest one; the tiles go back before the deal.
* *Deal* (R4): one chance node per dealt tile, seat 0's hand first, then seat
  1's, ...; outcome = the tile id (0..27), uniform over the tiles not dealt
  yet. The boneyard is not dealt: its order is drawn one tile at a time.
* *Draw* (R13, C1): drawing is the player's decision, action 112 (the only
  legal one when the seat has no play); a chance node then picks the drawn
  tile, uniform over the tiles still in the boneyard. The tile is moved to the
  boneyard's next position in this state's engine copy and the engine steps
  112, so the engine's own draw applies it (R13: a playable tile must be
  played at once; C2: a hand can end on the draw).

A uniform permutation of the boneyard and uniform draws one at a time give the
same law, so these games are distributed exactly as the engine's seeded
deals. ``max_chance_outcomes`` is 28: tiles 0..27 and seats 0..n-1 share ids,
which OpenSpiel allows because one node offers either seats or tiles, never
both. Player actions are the project's ids (:mod:`allfives_env.rules.actions`:
``4 * tile + slot`` for 0..111, 112 draw, 113 pass; ``num_distinct_actions``
114) and print as its names (``"[3|5]@E"``, ``"draw"``, ``"pass"``).

Rewards. ``returns()`` is the score sheet (``reward`` above); ``rewards()`` at
a decision node or at the end is what the seat gained since the last *player*
action (that action and the chance steps after it: a hand can end on a drawn
tile, C2). OpenSpiel's ``random_sim_test`` and ``rl_environment`` read rewards
exactly there, and their sum is the return.

Observations. The tensors (information state and observation alike) are the
project's default encoder vector
(:class:`~allfives_env.env.encoders.DefaultEncoder`: the seat's view,
``player_view(game, seat).observation(encoder.encode)``), zeros while a hand
is being dealt; the observer's ``dict`` holds its named parts. The strings
print the seat's whole :class:`~allfives_env.rules.view.PlayerView` (own
tiles, layout, scores, hand sizes, known lacking suits and the hand's history
with other seats' drawn tiles hidden), so two different views never print the
same. The view covers the current hand; earlier hands reach it only through
the scores and the hand number, which is everything that shapes the rest of
the game, but it means the information state is not perfect recall across
hands (it is within a hand).

Search. ``resample_from_infostate(player, sampler)`` returns a state whose
hidden tiles are redrawn by :func:`~allfives_env.rules.view.sample_world` from
that seat's view, for OpenSpiel's ISMCTS. It has no action history (ISMCTS
reads none). The numpy generator comes from two draws of ``sampler``
(OpenSpiel's ``UniformProbabilitySampler`` seeds itself from the OS); use
:meth:`AllFivesState.resample_with_rng` or ``ISMCTSBot.set_resampler`` for
reproducible searches, as :class:`OpenSpielAgent` does.

Arena agent. :class:`OpenSpielAgent` is the spec ``openspiel:BOT`` (e.g.
``openspiel:ismcts,simulations=50``): OpenSpiel's ISMCTS bot searching from a
state built from the seat's view alone.
"""

import math
from dataclasses import dataclass

import numpy as np

try:
    import pyspiel
    from open_spiel.python.algorithms import ismcts, mcts
except ImportError as exc:  # pragma: no cover - the extra is installed where tests run
    raise ImportError(f'allfives_env.integrations.openspiel needs OpenSpiel ({exc}): pip install -e ".[openspiel]"',
                      name=exc.name) from exc

from ..agents.base import BaseAgent
from ..env.encoders import DefaultEncoder
from ..env.options import EPISODES, REWARDS, check_choice, check_count, check_number, check_positive
from ..env.rewards import ranked_winners, side_outcomes, side_rewards
from ..rules.actions import DRAW, NUM_ACTIONS, PASS, action_name
from ..rules.config import MAX_TARGET, RulesConfig, is_int, is_valid_target
from ..rules.game import Game, split_order
from ..rules.scoring import MAX_COUNT
from ..rules.tiles import NUM_TILES, mask_to_tiles, tile_name
from ..rules.view import player_view, sample_world

__all__ = [
    "GAME_NAME", "GAME_TYPE", "AllFivesGame", "AllFivesState", "AllFivesObserver", "OpenSpielAgent",
    "OPENSPIEL_BOTS", "game_parameters",
]

GAME_NAME = "python_allfives"
#: Rule-variant parameters: RulesConfig's fields but num_players, with OpenSpiel-typed defaults (target 0 = R3).
RULE_PARAMETERS = {"hand_size": "standard", "target": 0, "first_leader": "random", "hand_scoring": "bonus",
                   "divisor": 5}
PARAMETERS = {"players": 2, **RULE_PARAMETERS, "episode": "game", "reward": "points", "reward_scale": 1.0,
              "max_hands": 0}
#: The most points a side can gain or lose in one hand's end (round5 of 168 pips, plus rounding per seat).
MAX_HAND_END_POINTS = 180
MAX_PLAY_POINTS = MAX_COUNT  # R15 with divisor 3 (V5): a count of 36 scores 36
#: The most hands a game may be cut at: the game length OpenSpiel is told (a C++ int) stays in range.
MAX_HANDS = 1_000_000

# Phases of a state: who acts next and what an action means.
LEADER, DEAL, PLAY, DRAW_TILE, OVER = "leader", "deal", "play", "draw", "over"


def _game_type(utility) -> "pyspiel.GameType":
    """The game type; only the utility differs between games (it follows the ``reward`` parameter)."""
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="All Fives dominoes (allfives_env)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.REWARDS,
        max_num_players=4,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=PARAMETERS,
    )


#: The registered type: that of the default reward="points" (raw points).
GAME_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)


# ------------------------------------------------------------------ parameters
@dataclass(frozen=True)
class _Setup:
    """A game's fixed settings, shared (never copied) by all its states."""

    config: RulesConfig
    episode: str
    reward: str
    reward_scale: float
    max_hands: int
    encoder: DefaultEncoder

    @property
    def hand_decisions(self) -> int:
        """Upper bound on one hand's decisions: 28 plays, one per boneyard draw, at most
        ``n - 1`` passes after each play (after ``n - 1`` passes in a row somebody can play, R18)."""
        n = self.config.num_players
        return NUM_TILES * n + self.config.boneyard_size

    @property
    def hands_cap(self) -> int:
        return 1 if self.episode == "hand" else self.max_hands


def _setup_from(params) -> _Setup:
    """Check the game parameters (one clear line per problem) and build the settings."""
    unknown = sorted(set(params) - set(PARAMETERS))
    if unknown:
        raise ValueError(f"unknown {GAME_NAME} parameter(s) {unknown}; allowed: {list(PARAMETERS)}")
    params = {**PARAMETERS, **params}
    players = params["players"]
    if not is_int(players) or players not in (2, 3, 4):
        raise ValueError(f"players={players!r} is not allowed; allowed: 2, 3 or 4")
    target = check_number("target", params["target"])
    if target != 0 and not is_valid_target(target):
        raise ValueError(f"target={params['target']!r} is not allowed; allowed: a positive number of points up to "
                         f"{MAX_TARGET:,}, or 0 for the R3 target")
    config = RulesConfig(num_players=players, hand_size=params["hand_size"], target=target or None,
                         first_leader=params["first_leader"], hand_scoring=params["hand_scoring"],
                         divisor=params["divisor"])
    scale = check_positive("reward_scale", params["reward_scale"])
    max_hands = params["max_hands"]
    if not is_int(max_hands) or not 0 <= max_hands <= MAX_HANDS:
        raise ValueError(f"max_hands={max_hands!r} is not allowed; allowed: a whole number from 1 to {MAX_HANDS:,}, "
                         "or 0 for auto")
    if max_hands == 0:  # room for many hands that score nothing (a tied block) or little (3 points with V5)
        max_hands = max(100, math.ceil(2 * config.num_sides * config.target_points / 5))
    return _Setup(config, check_choice("episode", params["episode"], EPISODES),
                  check_choice("reward", params["reward"], REWARDS), scale, int(max_hands), DefaultEncoder(config))


def game_parameters(config: RulesConfig, **options) -> dict:
    """The ``load_game`` parameters of ``config`` (plus ``options``: episode, reward, ...)."""
    target = config.target or 0
    params = {"players": config.num_players, "hand_size": config.hand_size,
              "target": int(target) if float(target).is_integer() else target, "first_leader": config.first_leader,
              "hand_scoring": config.hand_scoring, "divisor": config.divisor}
    return {**params, **options}


def _utility(setup: _Setup):
    """The GameType utility of a reward mode (see the module docstring)."""
    Utility = pyspiel.GameType.Utility
    if setup.reward == "zero_sum" or (setup.reward == "win" and setup.config.num_sides == 2):
        return Utility.ZERO_SUM
    return Utility.GENERAL_SUM


def _utility_range(setup: _Setup) -> tuple:
    """``(min, max)`` return, loose: a side's score stays below target + 36 + 180 (one step adds at most a
    play's 36 and a hand-end bonus); penalty scoring (V4) can lose 180 per hand."""
    if setup.reward == "win":
        low, high = -1.0, 1.0
    else:
        high = setup.config.target_points + MAX_HAND_END_POINTS + MAX_PLAY_POINTS
        low = -MAX_HAND_END_POINTS * setup.hands_cap if setup.config.hand_scoring == "penalty" else 0.0
        if setup.reward == "zero_sum":
            low, high = low - high, high - low
    return low * setup.reward_scale, high * setup.reward_scale


# ------------------------------------------------------------------ game
class AllFivesGame(pyspiel.Game):
    """The OpenSpiel game ``python_allfives`` (parameters: see the module docstring)."""

    def __init__(self, params=None):
        setup = _setup_from(dict(params or {}))
        config = setup.config
        low, high = _utility_range(setup)
        utility = _utility(setup)
        game_type = _game_type(utility)
        info = pyspiel.GameInfo(
            num_distinct_actions=NUM_ACTIONS, max_chance_outcomes=NUM_TILES, num_players=config.num_players,
            min_utility=low, max_utility=high,
            utility_sum=0.0 if utility == pyspiel.GameType.Utility.ZERO_SUM else None,
            max_game_length=setup.hands_cap * setup.hand_decisions)
        super().__init__(game_type, info, {**PARAMETERS, **dict(params or {})})
        self._setup = setup

    @property
    def rules(self) -> RulesConfig:
        """The rules of this game."""
        return self._setup.config

    def new_initial_state(self):
        """The state before the first leader draw (or deal)."""
        return AllFivesState(self)

    def max_chance_nodes_in_history(self):
        """Per hand: a leader draw, the dealt tiles and every boneyard draw."""
        config = self._setup.config
        per_hand = 1 + config.num_players * config.tiles_per_hand + config.boneyard_size
        return self._setup.hands_cap * per_hand

    def make_py_observer(self, iig_obs_type=None, params=None):
        """The observer of the tensors and strings (one seat's own view only)."""
        return AllFivesObserver(self._setup, iig_obs_type, params)

    def state_from_view(self, view, rng) -> "AllFivesState":
        """A decision state consistent with ``view`` (a :class:`~allfives_env.rules.view.PlayerView`
        of a seat to move): the hidden tiles are a world drawn by ``sample_world(view, rng)``, so
        nothing hidden from the seat is used. Rewards start at zero; returns are the score sheet."""
        if view.config != self._setup.config:
            raise ValueError(f"the view's rules {view.config} are not this game's {self._setup.config}")
        if view.hand_over or view.game_over:
            raise ValueError("state_from_view needs a view of a hand in play, not of a finished hand")
        state = AllFivesState(self)
        state._pos = _Position(self._setup, PLAY, engine=sample_world(view, rng))
        return state


# ------------------------------------------------------------------ state
class _Position:
    """Everything a state holds: the engine copy plus the chance bookkeeping.

    OpenSpiel's Python clone deep-copies a state's attributes; ``__deepcopy__``
    makes that one cheap ``Game.clone()`` and shares the fixed settings."""

    __slots__ = ("setup", "phase", "engine", "leader", "dealt", "rewards")

    def __init__(self, setup, phase, engine=None, leader=None, dealt=(), rewards=None):
        self.setup = setup
        self.phase = phase
        self.engine = engine  # None until the first hand is dealt
        self.leader = leader  # the leader of the hand being dealt
        self.dealt = list(dealt)  # tiles dealt so far, seat by seat
        self.rewards = [0.0] * setup.config.num_players if rewards is None else list(rewards)

    def __deepcopy__(self, memo):
        engine = None if self.engine is None else self.engine.clone()
        return _Position(self.setup, self.phase, engine, self.leader, self.dealt, self.rewards)


class AllFivesState(pyspiel.State):
    """One position of ``python_allfives``: a deal in progress, a decision, a draw, or the end."""

    def __init__(self, game):
        super().__init__(game)
        self._pos = _Position(game._setup, LEADER)  # R5/V3: the first leader is always drawn

    # ---------------------------------------------------------------- queries
    @property
    def engine(self):
        """The engine :class:`~allfives_env.rules.game.Game` (None before the first deal): read it, do not step it."""
        return self._pos.engine

    @property
    def phase(self) -> str:
        """The phase: ``"leader"``, ``"deal"``, ``"play"``, ``"draw"`` or ``"over"``."""
        return self._pos.phase

    def current_player(self):
        phase = self._pos.phase
        if phase == PLAY:
            return self._pos.engine.to_move
        if phase == OVER:
            return pyspiel.PlayerId.TERMINAL
        return pyspiel.PlayerId.CHANCE

    def is_terminal(self):
        return self._pos.phase == OVER

    def _legal_actions(self, player):
        return list(self._pos.engine.legal_actions())

    def chance_outcomes(self):
        """Uniform over the seats (leader), the undealt tiles (deal) or the boneyard's tiles (draw);
        ``ValueError`` at a decision or at the end (not a chance node)."""
        _require_chance_node(self._pos, "chance_outcomes()")
        outcomes = _chance_ids(self._pos)
        p = 1.0 / len(outcomes)
        return [(o, p) for o in outcomes]

    def _action_to_string(self, player, action):
        if player != pyspiel.PlayerId.CHANCE:
            return action_name(action)
        if self._pos.phase == LEADER:
            return f"leader: seat {action}"
        return f"tile {tile_name(action)}" if 0 <= action < NUM_TILES else f"chance {action}"

    def rewards(self):
        """What each seat gained since the last player action (see the module docstring)."""
        return list(self._pos.rewards)

    def returns(self):
        """The score sheet: each seat's side score in the chosen ``reward`` mode (see the module docstring)."""
        return _returns(self._pos)

    def hand_cap_reached(self) -> bool:
        """Whether this state ended a game episode at the ``max_hands`` cap, with no side at the target."""
        pos = self._pos
        return pos.phase == OVER and pos.setup.episode == "game" and not pos.engine.game_over

    def __str__(self):
        return _state_text(self._pos)

    # ---------------------------------------------------------------- moves
    def _apply_action(self, action):
        pos = self._pos
        if pos.phase == OVER:
            raise ValueError(f"action {action} is not allowed here: the episode is over (a terminal state)")
        if pos.phase == PLAY:
            _check_in(action, pos.engine.legal_actions(), "legal actions of seat", pos.engine.to_move)
            _play(pos, action)
        else:
            _check_in(action, _chance_ids(pos), f"{pos.phase} chance outcomes", None)
            _chance(pos, action)

    # ---------------------------------------------------------------- search
    def resample_from_infostate(self, player_id, probability_sampler):
        """A state equal in ``player_id``'s view, hidden tiles redrawn (for ISMCTS).

        The numpy generator is seeded by two draws of ``probability_sampler`` (any
        callable giving floats in [0, 1)); see :meth:`resample_with_rng`."""
        seed = [int(probability_sampler() * 2**32) for _ in range(2)]
        return self.resample_with_rng(player_id, np.random.default_rng(seed))

    def resample_with_rng(self, player_id, rng):
        """A state equal in ``player_id``'s view whose hidden tiles (other hands, the boneyard,
        another seat's pending drawn tile) are drawn by :func:`~allfives_env.rules.view.sample_world`
        with ``rng`` (a numpy Generator). Needs a hand in play (a decision or a draw); the new
        state has no action history and keeps this state's rewards."""
        pos = self._pos
        if pos.phase not in (PLAY, DRAW_TILE):
            raise ValueError(f"resample needs a state in a hand's play (a decision or a draw), not phase {pos.phase!r}")
        if not is_int(player_id) or not 0 <= player_id < pos.setup.config.num_players:
            raise ValueError(f"player_id={player_id!r} is not a seat; allowed 0..{pos.setup.config.num_players - 1}")
        world = sample_world(player_view(pos.engine, int(player_id)), rng)
        state = AllFivesState(self.get_game())
        state._pos = _Position(pos.setup, pos.phase, engine=world, rewards=pos.rewards)
        return state


def _check_in(action, allowed, what, seat):
    if action not in allowed:
        who = f"{what} {seat}" if seat is not None else what
        raise ValueError(f"action {action} is not allowed here; {who}: {list(allowed)}")


def _require_chance_node(pos, call):
    if pos.phase == OVER:
        raise ValueError(f"{call} is for chance nodes; this state is terminal")
    if pos.phase == PLAY:
        raise ValueError(f"{call} is for chance nodes; this state is a decision of seat {pos.engine.to_move}")


def _chance_ids(pos) -> list:
    """The chance outcome ids at ``pos``, ascending."""
    if pos.phase == LEADER:
        return list(range(pos.setup.config.num_players))
    if pos.phase == DEAL:
        dealt = set(pos.dealt)
        return [t for t in range(NUM_TILES) if t not in dealt]
    engine = pos.engine
    return sorted(engine.boneyard[engine.bone_pos:])


def _play(pos, action):
    """A player's action: a draw waits for its tile (a chance node); anything else steps the engine."""
    pos.rewards = [0.0] * pos.setup.config.num_players  # rewards count from this player action on
    if action == DRAW:
        pos.phase = DRAW_TILE
        return
    pos.engine.step(action)
    _after_step(pos)


def _chance(pos, outcome):
    if pos.phase == LEADER:
        pos.leader, pos.phase = outcome, DEAL
        return
    if pos.phase == DEAL:
        pos.dealt.append(outcome)
        if len(pos.dealt) == pos.setup.config.num_players * pos.setup.config.tiles_per_hand:
            _start_hand(pos)
        return
    engine = pos.engine  # DRAW_TILE: put the chosen tile next in the boneyard, then let the engine draw it
    index = engine.boneyard.index(outcome, engine.bone_pos)
    engine.boneyard[engine.bone_pos], engine.boneyard[index] = outcome, engine.boneyard[engine.bone_pos]
    engine.step(DRAW)
    pos.phase = PLAY
    _after_step(pos)


def _start_hand(pos):
    """Hand the completed deal to the engine (its own validation and R19 leader check)."""
    config = pos.setup.config
    rest = sorted(set(range(NUM_TILES)) - set(pos.dealt))  # drawn later, one chance node each
    if pos.engine is None:
        pos.engine = Game(config)
        hands, boneyard = split_order(config, pos.dealt + rest)
        pos.engine.start_game(None, hands=hands, boneyard=boneyard, leader=pos.leader)  # complete: rng unused
    else:
        pos.engine.start_next_hand(None, deal=(pos.leader, pos.dealt + rest))
    pos.phase, pos.leader, pos.dealt = PLAY, None, []


def _after_step(pos):
    """Add the step's points to the rewards, then end the episode or go on to the next hand."""
    setup, engine = pos.setup, pos.engine
    gains = _seat_values(setup, engine.step_gain) if setup.reward != "win" else None
    if gains is not None:
        pos.rewards = [r + g for r, g in zip(pos.rewards, gains)]
    if not engine.hand_over:
        return
    if engine.game_over or setup.episode == "hand" or engine.hand_number + 1 >= setup.max_hands:
        pos.phase = OVER
        if setup.reward == "win":
            pos.rewards = [r + w * setup.reward_scale for r, w in zip(pos.rewards, _win_values(setup, engine))]
        return
    pos.leader = engine.next_leader  # R19: the domino seat leads; after a block the leader is drawn
    pos.phase = LEADER if pos.leader is None else DEAL


def _seat_values(setup, side_values) -> list:
    """Per seat, scaled: its side's value ("points") or that minus the other sides' mean ("zero_sum")."""
    config = setup.config
    side_values = side_rewards(side_values, setup.reward)
    return [side_values[config.side_of(seat)] * setup.reward_scale for seat in range(config.num_players)]


def _win_values(setup, engine) -> list:
    """+1 / -1 / 0 per seat as the AEC env's "win" reward: the winners of the game, else (a hand
    episode, or the max_hands cap) the sides ranked by the points of the hand or of the game."""
    config = setup.config
    if engine.game_over:
        winners = set(engine.winners)
    else:
        base = engine.hand_start_scores if setup.episode == "hand" else [0.0] * config.num_sides
        winners = ranked_winners([s - b for s, b in zip(engine.scores, base)])
    side_value = side_outcomes(winners, config.num_sides)
    return [side_value[config.side_of(seat)] for seat in range(config.num_players)]


def _returns(pos) -> list:
    setup, engine = pos.setup, pos.engine
    n = setup.config.num_players
    if setup.reward == "win":
        if pos.phase != OVER:
            return [0.0] * n
        return [w * setup.reward_scale for w in _win_values(setup, engine)]
    if engine is None:
        return [0.0] * n
    return _seat_values(setup, engine.scores)


# ------------------------------------------------------------------ text
def _tiles_text(tiles) -> str:
    return " ".join(tile_name(t) for t in tiles) or "-"


def _number(x) -> str:
    return f"{x:g}"


def _event_text(event) -> str:
    seat, action, tile, points, _count = event
    if action == DRAW:
        return f"{seat}:draw{tile_name(tile) if tile >= 0 else '?'}"
    if action == PASS:
        return f"{seat}:pass"
    return f"{seat}:{action_name(action)}" + (f"+{points}" if points else "")


def _scores_text(scores) -> str:
    return "/".join(_number(s) for s in scores)


def view_text(view, drawing=False) -> str:
    """Every field of a :class:`~allfives_env.rules.view.PlayerView`, readable, one part per line;
    ``drawing``: the seat to move has chosen to draw and its tile is being drawn."""
    lacks = " ".join(f"{s}:{''.join(str(v) for v in range(7) if mask >> v & 1)}"
                     for s, mask in enumerate(view.lacks) if mask)
    arms = " ".join(f"{name}{_tiles_text(arm)}" for name, arm in zip("WENS", view.arms))
    lines = [
        f"seat {view.seat} (side {view.side}) | hand {view.hand_number} | leader {view.leader} | "
        f"to move {view.to_move}{' (drawing)' if drawing else ''} | drawn this turn {view.drawn_this_turn}",
        f"scores {_scores_text(view.scores)} (hand start {_scores_text(view.hand_start_scores)}, "
        f"target {_number(view.target)})",
        f"own {_tiles_text(view.hand_tiles)}" + (f" | must play {tile_name(view.must_play)}"
                                                 if view.must_play >= 0 else ""),
        f"layout lead {tile_name(view.lead_tile) if view.lead_tile >= 0 else '-'} | {arms} | "
        f"open {list(view.open_value)} | count {view.count}",
        f"hand sizes {list(view.hand_sizes)} | boneyard {view.boneyard_left}/{view.boneyard_size} | "
        f"lacks {lacks or '-'}",
        f"history {' '.join(_event_text(e) for e in view.events) or '-'}",
    ]
    if view.hand_over:
        lines.append(f"hand over | next leader {view.next_leader} | game over {view.game_over} | "
                     f"winners {list(view.winners)}")
    return "\n".join(lines)


def _deal_text(pos, seat) -> str:
    """What ``seat`` knows while a hand is dealt: the scores, the leader once drawn, its tiles so far."""
    config = pos.setup.config
    engine = pos.engine
    scores = engine.scores if engine is not None else [0.0] * config.num_sides
    hand_number = 0 if engine is None else engine.hand_number + 1
    size = config.tiles_per_hand
    own = sorted(pos.dealt[seat * size:(seat + 1) * size])
    leader = "?" if pos.leader is None else pos.leader
    return (f"seat {seat} | hand {hand_number} being dealt | leader {leader} | scores {_scores_text(scores)}\n"
            f"own so far {_tiles_text(own)} | dealt {len(pos.dealt)}/{config.num_players * size}")


def _observer_text(pos, seat) -> str:
    if pos.phase in (LEADER, DEAL):
        return _deal_text(pos, seat)
    return view_text(player_view(pos.engine, seat), drawing=pos.phase == DRAW_TILE)


def _state_text(pos) -> str:
    """The full state (every hand and the boneyard's tiles, as a set: their order is drawn later)."""
    if pos.phase in (LEADER, DEAL):
        text = "\n".join(_deal_text(pos, seat) for seat in range(pos.setup.config.num_players))
        return f"phase {pos.phase}\n{text}"
    engine = pos.engine
    hands = " | ".join(f"{s}: {_tiles_text(mask_to_tiles(h))}" for s, h in enumerate(engine.hands))
    history = " ".join(_event_text(e) for e in engine.events) or "-"
    arms = " ".join(f"{name}{_tiles_text(arm)}" for name, arm in zip("WENS", engine.arms))
    return (f"phase {pos.phase} | hand {engine.hand_number} | leader {engine.leader} | to move {engine.to_move} | "
            f"scores {_scores_text(engine.scores)}\nhands {hands}\n"
            f"boneyard {_tiles_text(sorted(engine.boneyard[engine.bone_pos:]))}\n"
            f"layout {arms} | count {engine.count}\nhistory {history}")


# ------------------------------------------------------------------ observer
class AllFivesObserver:
    """OpenSpiel's Python observer: ``tensor`` (the default encoder vector), ``dict`` (its named
    parts), ``set_from(state, player)`` and ``string_from(state, player)``.

    Information state and observation are the same here: the seat's own view
    (private_info must be the single player's, public_info on)."""

    def __init__(self, setup, iig_obs_type, params):
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        if iig_obs_type is not None and (not iig_obs_type.public_info
                                         or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise ValueError(f"{GAME_NAME} observes one seat's own view only; allowed: public_info=True and "
                             "private_info=SINGLE_PLAYER")
        self._encoder = setup.encoder
        self.tensor = np.zeros(setup.encoder.size, np.float32)
        self.dict = setup.encoder.layout.views(self.tensor)

    def set_from(self, state, player):
        """Write ``player``'s view of ``state`` into ``tensor``: the encoder reads only that seat's
        hand and public fields, so this is ``player_view(game, player).observation(encoder.encode)``."""
        pos = state._pos
        if pos.phase in (LEADER, DEAL):  # no hand in play: the encoder's own convention is zeros
            self.tensor.fill(0.0)
            return
        self._encoder.encode(pos.engine, player, self.tensor)

    def string_from(self, state, player):
        """``player``'s whole view as text (see :func:`view_text`)."""
        return _observer_text(state._pos, player)


pyspiel.register_game(GAME_TYPE, AllFivesGame)


# ------------------------------------------------------------------ arena agent
#: The OpenSpiel bots an ``openspiel:BOT`` spec can name.
OPENSPIEL_BOTS = ("ismcts",)


class OpenSpielAgent(BaseAgent):
    """openspiel:BOT: an OpenSpiel bot (ismcts) searching from the seat's own view.

    ``ismcts``: OpenSpiel's information-set MCTS (``ISMCTSBot``) with random
    rollouts (``RandomRolloutEvaluator``). Each decision builds a state from the
    view alone (:meth:`AllFivesGame.state_from_view`: the hidden tiles are a
    sampled world) and every simulation redraws them from the same view, so the
    bot never sees another seat's tiles or the boneyard. Options:
    ``simulations`` (per decision), ``uct_c`` (exploration), ``rollouts``
    (random rollouts per new node), ``episode`` ("hand": search to the hand's
    end; "game": to the game's end, far slower), ``reward`` (what the search
    maximizes: "zero_sum", "points" or "win") and ``reward_scale`` (returns
    are scaled by it: UCT wants values near [-1, 1]). All randomness comes
    from the arena's generator.
    """

    name = "openspiel"
    shipped_player = True  # its failures are the package's bugs, shown in full (arena.game.is_builtin_agent)

    def __init__(self, bot="ismcts", simulations=100, uct_c=2.0, rollouts=1, episode="hand", reward="zero_sum",
                 reward_scale=0.02):
        super().__init__()
        if bot not in OPENSPIEL_BOTS:
            raise ValueError(f"unknown OpenSpiel bot {bot!r}; allowed: {', '.join(OPENSPIEL_BOTS)}")
        self.bot_name = bot
        self.simulations = check_count("simulations", simulations)
        self.rollouts = check_count("rollouts", rollouts)
        self.uct_c = check_number("uct_c", uct_c, minimum=0.0)  # a negative exploration bonus explores less than none
        self.episode = check_choice("episode", episode, EPISODES)
        self.reward = check_choice("reward", reward, REWARDS)
        self.reward_scale = check_positive("reward_scale", reward_scale)
        self.game = self.bot = None

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        # Built directly, not by load_game: the arena's target may be fractional (V2).
        self.game = AllFivesGame(game_parameters(
            config, episode=self.episode, reward=self.reward, reward_scale=self.reward_scale))
        random_state = np.random.RandomState(int(rng.integers(2**32)))
        evaluator = mcts.RandomRolloutEvaluator(self.rollouts, random_state=random_state)
        self.bot = ismcts.ISMCTSBot(self.game, evaluator, self.uct_c, self.simulations,
                                    random_state=random_state)
        # Redraw each simulation's world with the arena's generator (reproducible), from the root's view.
        self.bot.set_resampler(lambda state, player: state.resample_with_rng(player, self.rng))

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:
            return int(legal_actions[0])
        state = self.game.state_from_view(view, self.rng)
        action = int(self.bot.step(state))
        if action not in legal_actions:  # pragma: no cover - the search only expands legal actions
            raise RuntimeError(f"the OpenSpiel bot chose {action}, not one of {list(legal_actions)}")
        return action
