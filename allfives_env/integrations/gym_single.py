"""A single-agent ``gymnasium.Env`` view of All Fives: one learner, the other seats scripted.

``SingleAgentAllFives(num_players=2, learner="random", opponents="greedy")``
is a plain Gymnasium environment for libraries that train one policy at a
time (Stable-Baselines3, sb3-contrib's ``MaskablePPO``, CleanRL, ...). The
learner plays one seat (``control="seat"``) or, with 4 players, both seats of
its partnership (``control="side"``); every other seat is played by an arena
agent built from a spec (``"random"``, ``"greedy"``, ``"heuristic"``,
``"search:samples=16"``, ``"ppo:PATH"``, ``"pkg.mod:Class"``) or an agent
object (see :mod:`allfives_env.agents.base`).

Each ``step(action)`` plays the learner's action, then lets the opponents
move until the learner must decide again or the episode ends. The reward is
what the learner's side gained since its previous decision, opponents' turns
included (the AEC environment's ``last()`` semantics, in its ``reward``
mode); what the side gained before the learner's first decision of an
episode (an opponent's scoring lead) is added to the first step's reward,
so an episode's return is the side's total over the episode. Episodes end
with the game (or the hand, ``episode="hand"``); there is no truncation.

Observations: ``obs="dict"`` gives ``{"observation": float32 vector,
"action_mask": int8 (114,)}``; ``obs="flat"`` gives the vector alone. Either
way ``action_masks()`` (what ``MaskablePPO`` calls) and
``info["action_mask"]`` hold the legal actions; ``info`` also has ``seat``
(the learner seat to move), ``learner_seats`` and every side's ``scores``.

Illegal actions: ``check_env`` and unmasked algorithms sample from the whole
``Discrete(114)``. With ``illegal_action="penalize"`` (the default) an action
that is in the space but not legal changes nothing: the learner gets
``illegal_reward`` (default -1.0), the same observation, and
``info["illegal_action"] = True``. With ``illegal_action="raise"`` it raises
:class:`~allfives_env.env.IllegalActionError` listing the legal actions. An
action outside the space always raises.

Seeding: ``reset(seed=s)`` fixes every later deal, learner seat and
opponent choice, over any number of episodes.

Registered with Gymnasium as ``"AllFives-v0"``:
``gymnasium.make("allfives_env.integrations:AllFives-v0", num_players=2)``
(the ``module:`` prefix imports this package, which registers the id).

:class:`PolicyAgent` goes the other way: it turns a trained policy's
``predict(obs, mask) -> action`` into an arena agent, feeding it the same
observations as the wrapper, so ``allfives_env.arena.run_match`` can score it.
"""

import copy

import gymnasium
import numpy as np
from gymnasium import spaces

from ..agents.base import BaseAgent
from ..agents.registry import make_agent
from ..env.aec import IllegalActionError, ResetNeededError, as_action_id, raw_env
from ..env.encoders import check_encoder_name, make_encoder
from ..env.options import UnknownOptionError, check_choice, check_number, check_seed
from ..rules.actions import NUM_ACTIONS, check_action_id
from ..rules.view import player_view

__all__ = ["SingleAgentAllFives", "PolicyAgent", "OBS_MODES", "CONTROL_MODES", "ILLEGAL_MODES"]

OBS_MODES = ("dict", "flat")
CONTROL_MODES = ("seat", "side")
ILLEGAL_MODES = ("penalize", "raise")
_SEED_BOUND = 2**63


class SingleAgentAllFives(gymnasium.Env):
    """One learning seat (or partnership) against arena agents; see the module docstring.

    Args:
        num_players: 2, 3 or 4.
        learner: the learner's seat, an int in ``0..num_players-1``, or
            ``"random"`` for a seat drawn at every reset.
        opponents: one agent spec (or agent object) for every seat the learner
            does not control, or a list with one entry per such seat, in play
            order starting after the learner's seat (relative seats 1, 2, ...;
            with ``control="side"`` and 4 players: the two opponents).
        control: ``"seat"`` (the learner plays one seat; a 4-player partner is
            an opponent-list entry) or ``"side"`` (4 players only: the learner
            plays both seats of its partnership; with 2 or 3 players every side
            is one seat, so ``"side"`` is refused).
        obs: ``"dict"`` or ``"flat"``.
        illegal_action: ``"penalize"`` or ``"raise"`` (see the module docstring).
        illegal_reward: the reward for a penalized illegal action.
        render_mode: ``None``, ``"ansi"``, ``"human"`` or ``"rgb_array"``.
        **options: the AEC environment's options (``episode``, ``reward``,
            ``encoder``, ``auto_forced`` and the rule variants).
    """

    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "render_fps": 2}

    def __init__(self, num_players=2, learner="random", opponents="random", control="seat", obs="dict",
                 illegal_action="penalize", illegal_reward=-1.0, render_mode=None, **options):
        super().__init__()
        try:
            self.aec = raw_env(num_players=num_players, render_mode=render_mode, **options)
        except UnknownOptionError as exc:
            raise exc.with_options_of(SingleAgentAllFives.__init__) from None
        self.config = self.aec.config
        self.render_mode = render_mode
        n = self.config.num_players
        check_choice("obs", obs, OBS_MODES)
        self.learner, self.illegal_reward = check_learner_options(n, learner, control, illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        self.control = control
        self.obs_mode = obs
        self._num_others = n - (n // self.config.num_sides if control == "side" else 1)
        self._opponents = _build_opponents(opponents, self._num_others, self.config)
        self.opponent_specs = [spec if isinstance(spec, str) else repr(spec) for spec in
                               (opponents if isinstance(opponents, (list, tuple)) else [opponents] * self._num_others)]

        vector = spaces.Box(-np.inf, np.inf, (self.aec.encoder.size,), np.float32)
        if obs == "dict":
            self.observation_space = spaces.Dict({"observation": vector,
                                                  "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
        else:
            self.observation_space = vector
        self.action_space = spaces.Discrete(NUM_ACTIONS)
        self.learner_seats = ()
        self._seat_agent = {}
        self._done = True
        self._has_reset = False

    # ------------------------------------------------------------------ gym API
    def reset(self, *, seed=None, options=None):
        """Start an episode; ``options`` are the AEC env's position options
        (``hands``, ``boneyard``, ``leader``, ``scores``) plus ``"learner"``
        (a seat for this episode only)."""
        check_seed(seed)  # every check before the generator changes: a refused reset changes nothing
        if options is not None and not isinstance(options, dict):
            raise ValueError(f"options={options!r} is not allowed; allowed: None or a dict")
        options = dict(options or {})
        seat_override = options.pop("learner", None)
        n = self.config.num_players
        if seat_override is not None and (isinstance(seat_override, (bool, np.bool_)) or not (
                isinstance(seat_override, (int, np.integer)) and 0 <= seat_override < n)):
            raise ValueError(f"reset option learner={seat_override!r}; allowed: a seat 0..{n - 1}")
        before = (self._np_random, self._np_random_seed,
                  None if self._np_random is None else self._np_random.bit_generator.state)
        super().reset(seed=None if seed is None else int(seed))
        try:
            return self._reset_episode(seat_override, options)
        except Exception:  # e.g. a position the AEC env refuses (before it changed anything): the generator too
            self._np_random, self._np_random_seed, state = before
            if state is not None:
                self._np_random.bit_generator.state = state
            raise

    def _reset_episode(self, seat_override, options):
        n = self.config.num_players
        while True:
            if seat_override is not None:
                seat = int(seat_override)
            elif self.learner == "random":
                seat = int(self.np_random.integers(n))
            else:
                seat = self.learner
            self._start_episode(seat, options)
            self._has_reset, self._done = True, False
            self._pending = self._learner_reward() + self._play_others()
            if not self._done:
                break
            # The episode ended before the learner's first decision (its forced
            # draws and passes auto-played, or a given position); with random
            # deals, play another episode.
            if options:
                self._done = True  # the position was played out: step() now asks for a reset
                raise ValueError("the given position ends before the learner has a decision; "
                                 "give one where a learner seat still has a choice to make")
        return self._observe(), self._info()

    def step(self, action):
        if not self._has_reset:
            raise IllegalActionError("step() before reset(); call reset() first")
        if self._done:
            raise IllegalActionError("the episode is over; call reset() first")
        action = as_action_id(action)  # not an id of the space: raised, penalized or not
        if self.illegal_action == "penalize" and not self.aec._masks[self._seat_to_move()][action]:
            reward, self._pending = self._pending + self.illegal_reward, 0.0
            return self._observe(), float(reward), False, False, {**self._info(), "illegal_action": True}
        self.aec.step(action)  # raises IllegalActionError (listing legal actions) for a bad action
        reward = self._pending + self._learner_reward()
        self._pending = 0.0
        reward += self._play_others()
        return self._observe(), float(reward), self._done, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (all False once the episode is over)."""
        if not self._has_reset:
            raise ResetNeededError("action_masks() before reset(); call reset() first")
        return self.aec._masks[self._seat_to_move()].astype(bool)

    def render(self):
        return self.aec.render()

    def close(self):
        self.aec.close()

    # ------------------------------------------------------------------ internals
    def _start_episode(self, seat, options):
        n = self.config.num_players
        if self.control == "side":
            side = self.config.side_of(seat)
            learner_seats = tuple(s for s in range(n) if self.config.side_of(s) == side)
        else:
            learner_seats = (seat,)
        others = [(seat + k) % n for k in range(1, n) if (seat + k) % n not in learner_seats]
        agent_seeds = [int(self.np_random.integers(_SEED_BOUND)) for _ in others]
        # the AEC env first: it refuses a bad position before it (or anything here) changes
        self.aec.reset(seed=int(self.np_random.integers(_SEED_BOUND)), options=options or None)
        self.learner_seats = learner_seats
        self._rep = self.aec.possible_agents[seat]
        self._seat_agent = {}
        for agent, other, agent_seed in zip(self._opponents, others, agent_seeds):
            agent.reset(other, self.config, np.random.default_rng(agent_seed))
            self._seat_agent[other] = agent

    def _learner_reward(self) -> float:
        """The learner side's reward from the AEC env's last transition."""
        return self.aec.rewards[self._rep]

    def _play_others(self) -> float:
        """Opponents move until a learner seat must decide; returns the side's gain meanwhile."""
        aec = self.aec
        gained = 0.0
        while True:
            if aec.terminations[self._rep]:
                self._done = True
                return gained
            seat = self._seat_to_move()
            if seat in self.learner_seats:
                return gained
            game = aec.game  # the engine's state now (re-read after every step)
            legal = game.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                view = player_view(game, seat)
                action = self._seat_agent[seat].act(view, view.legal_actions)
                if action not in legal:
                    raise ValueError(f"opponent at seat {seat} chose an illegal action {action!r}; legal: {list(legal)}")
            aec.step(int(action))
            gained += self._learner_reward()

    def _observe(self):
        aec = self.aec
        seat = self._seat_to_move() if not self._done else self.learner_seats[0]
        vector = aec.observe(aec.possible_agents[seat])["observation"]
        if self.obs_mode == "flat":
            return vector
        return {"observation": vector, "action_mask": aec._masks[seat].copy()}

    def _info(self):
        aec = self.aec
        seat = self._seat_to_move() if not self._done else self.learner_seats[0]
        return {"action_mask": aec._masks[seat].copy(), "illegal_action": False, "seat": seat,
                "learner_seats": self.learner_seats, "scores": aec.infos[self._rep]["scores"]}

    def _seat_to_move(self) -> int:
        return self.aec.agent_name_mapping[self.aec.agent_selection]


def check_learner_options(n, learner, control, illegal_action, illegal_reward):
    """Check the learner arguments shared by the single-game and the vector wrappers (one line each,
    naming what is allowed); returns ``(learner, illegal_reward)`` normalised."""
    check_choice("control", control, CONTROL_MODES)
    if control == "side" and n != 4:
        raise ValueError(f"control='side' is not allowed with {n} players: a side is one seat unless 4 "
                         "players play as two partnerships; use control='seat' (or num_players=4)")
    check_choice("illegal_action", illegal_action, ILLEGAL_MODES)
    reward = check_number("illegal_reward", illegal_reward)
    if not (learner == "random" or (isinstance(learner, (int, np.integer)) and not isinstance(learner, bool)
                                    and 0 <= learner < n)):
        raise ValueError(f"learner={learner!r} is not a seat of a {n}-player game; "
                         f"allowed: 'random' or a seat 0..{n - 1}")
    return (learner if learner == "random" else int(learner)), reward


def _build_opponents(opponents, count, config):
    """One agent per non-learner seat, checked now so that a bad spec, or one that cannot play this game
    (a policy for other rules), fails at construction: each spec's agent is seated once."""
    n = config.num_players
    if isinstance(opponents, (list, tuple)):
        if len(opponents) != count:
            raise ValueError(f"{len(opponents)} opponent specs for {count} non-learner seat(s) of a {n}-player "
                             f"game; give one spec, or a list of {count} in play order after the learner")
        specs = list(opponents)
    else:
        specs = [opponents] * count
    agents = []
    for i, spec in enumerate(specs):
        try:
            agent = make_agent(spec)
            if isinstance(spec, str):
                agent.reset(1, config, np.random.default_rng(0))
        except ValueError as exc:
            raise ValueError(f"opponents[{i}]: {exc}") from None
        if any(agent is other for other in agents):  # one object given for several seats
            agent = copy.deepcopy(agent)
        agents.append(agent)
    return agents


class PolicyAgent(BaseAgent):
    """An arena agent that asks ``predict(obs, mask) -> action`` for every decision.

    ``obs`` is what :class:`SingleAgentAllFives` would return for the seat
    (``obs="dict"`` or ``"flat"``, with the same ``encoder``), ``mask`` the
    boolean legal-action mask. For sb3-contrib's ``MaskablePPO``::

        PolicyAgent(lambda o, m: model.predict(o, action_masks=m, deterministic=True)[0], obs="flat")

    Single-choice decisions are played without asking (as the arena does).
    An illegal answer raises ``ValueError``.
    """

    name = "policy"

    def __init__(self, predict, obs="dict", encoder="default", name="policy"):
        super().__init__()
        check_choice("obs", obs, OBS_MODES)
        if not callable(predict):
            raise ValueError(f"predict={predict!r} is not allowed; allowed: a callable predict(obs, mask) -> action")
        if not isinstance(name, str) or not name:
            raise ValueError(f"name={name!r} is not allowed; allowed: a non-empty string (the arena's label)")
        check_encoder_name(encoder)  # now, not at its first game
        self.predict, self.obs_mode, self.encoder_spec, self.name = predict, obs, encoder, name
        self._encoders = {}

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        if config not in self._encoders:
            self._encoders[config] = make_encoder(self.encoder_spec, config)

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:
            return legal_actions[0]
        vector = view.observation(self._encoders[view.config].encode)
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[list(legal_actions)] = True
        obs = vector if self.obs_mode == "flat" else {"observation": vector, "action_mask": mask.astype(np.int8)}
        action = self.predict(obs, mask)
        try:
            action = check_action_id(action)  # 0.7 is no action: int() would make it 0
        except ValueError as err:
            raise ValueError(f"{self.name}'s predict returned no action id: {err}") from None
        if action not in legal_actions:
            raise ValueError(f"{self.name} chose an illegal action {action}; legal: {list(legal_actions)}")
        return action

    def __repr__(self):
        return self.name
