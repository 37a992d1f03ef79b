"""PettingZoo AEC environment for All Fives.

``allfives_env.env(num_players=2, render_mode=None, **options)`` returns the
wrapped environment, ``allfives_env.raw_env(...)`` the unwrapped one.

Agents ``"player_0" .. "player_{n-1}"``; seat ``i`` is followed by seat
``(i + 1) % n`` (R2). With 4 players, seats 0 and 2 are partners (side 0),
seats 1 and 3 (side 1). The engine decides who moves next: a player who draws
keeps the turn (C1).

Action space: ``Discrete(114)``; ``4 * tile + slot`` places a tile (slots
W=0, E=1, N=2, S=3), ``112`` draws, ``113`` passes (see
:mod:`allfives_env.rules.actions`).

Observation: ``{"observation": float32 vector, "action_mask": int8 (114,)}``.
The mask is also in ``infos[agent]["action_mask"]``: the mover's a copy (it
never changes after the step that gave it), every other agent's a shared
read-only array of zeros.
``infos[agent]["scores"]`` holds every side's exact score.

Options (keyword arguments):

* ``episode``: ``"game"`` (hands follow one another until a side reaches the
  target) or ``"hand"`` (one hand per episode).
* ``reward``: ``"points"`` (each agent gets the points its side gained in the
  step; partners both get them), ``"zero_sum"`` (side's points minus the mean
  of the other sides' points) or ``"win"`` (only when the episode ends: +1 to
  the winning side, -1 to every other side, 0 to sides in a drawn game (R25);
  with ``episode="hand"`` an unfinished game is ranked by the points gained in
  that hand, ties 0).
* ``encoder``: ``"default"``, ``"history"``, an encoder class or instance.
* ``auto_forced``: resolve single-choice forced steps (draw, pass) inside the
  env, off by default; their points still reach the right agents.
* ``backend``: ``"auto"`` (default: the compiled numba core when numba is
  installed and the encoder is the default one, else the Python engine),
  ``"numba"`` or ``"python"``. Both give the same games for the same seed
  (see :mod:`allfives_env.env.cores`).
* the rule variants of :class:`~allfives_env.rules.RulesConfig`: ``hand_size``,
  ``target``, ``first_leader``, ``hand_scoring``, ``divisor``.

``reset(seed=..., options=...)``: one seeded reset fixes every later deal and
lot drawn, over any number of episodes. ``options`` may hold ``"hands"``,
``"boneyard"``, ``"leader"`` and ``"scores"`` to reproduce a position.

Rewards follow PettingZoo: ``env.rewards`` is what the last step gave each
agent, and ``last()`` returns what the agent gained since it last acted.
"""

from collections.abc import Mapping

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from ..rules.actions import NUM_ACTIONS, action_name, check_action_id
from ..rules.config import RulesConfig
from .cores import BACKENDS, encoded, make_core
from .encoders import ENCODERS, make_encoder
from .options import ENV_OPTIONS, EnvOptions, UnknownOptionError, check_choice, check_seed
from .render.text import render_text
from .rewards import ranked_winners, side_outcomes, side_rewards

RESET_OPTIONS = ("hands", "boneyard", "leader", "scores")
#: The ``infos`` mask of every agent not to move: all zeros, shared, read-only.
NO_LEGAL_ACTIONS = np.zeros(NUM_ACTIONS, dtype=np.int8)
NO_LEGAL_ACTIONS.flags.writeable = False


class IllegalActionError(ValueError):
    """An action that is out of range or not legal for the agent to move."""


class ResetNeededError(RuntimeError, AssertionError):
    """A call that needs a reset first: ``step``, ``last``, ``observe``, ``state`` or ``render`` of the raw
    env before its first ``reset`` (through ``env()``, PettingZoo's wrapper may answer first).

    Also an ``AssertionError``, which is what PettingZoo's own order-enforcing
    wrapper raises for a step before reset."""


NO_AGENTS = ("the episode is over and every agent has stepped None, so there is no agent to report "
             "(each got its final values from last() before its step(None)); call reset() first")


def env(num_players=2, render_mode=None, **options):
    """The wrapped environment (PettingZoo's order-enforcing wrapper, with fast paths)."""
    return OrderEnforcing(raw_env(num_players=num_players, render_mode=render_mode, **options))


def _forwarded(name):
    """A property reading ``name`` from the inner env once reset has happened.

    PettingZoo's wrapper reaches these through ``__getattr__``, which runs only
    after a failed normal lookup; on the per-decision path that costs more
    than the game's own step, so they are looked up directly here."""

    def get(self):
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self.env, name)

    return property(get)


class OrderEnforcing(wrappers.OrderEnforcingWrapper):
    """PettingZoo's ``OrderEnforcingWrapper`` with the same checks, minus the
    ``__getattr__`` detour on the attributes read at every decision."""

    agents = _forwarded("agents")
    agent_selection = _forwarded("agent_selection")
    rewards = _forwarded("rewards")
    terminations = _forwarded("terminations")
    truncations = _forwarded("truncations")
    infos = _forwarded("infos")
    _cumulative_rewards = _forwarded("_cumulative_rewards")

    def agent_iter(self, max_iter=2**63):
        """PettingZoo's order-enforcing agent iterator, as a generator (same checks, fewer calls)."""
        return _enforced_agents(self, max_iter)

    def last(self, observe=True):
        if not self._has_reset:
            raise AttributeError("last() cannot be called before reset()")
        return self.env.last(observe)

    def step(self, action):
        # PettingZoo's wrapper step, flattened (its super() chain costs a call per level)
        if not self._has_reset:
            raise ResetNeededError("step() before reset(); call reset() first")
        if not self.env.agents:
            raise IllegalActionError("the episode is over and every agent is done; call reset() first")
        self._has_updated = True
        self.env.step(action)


def _enforced_agents(wrapper, max_iter):
    raw = wrapper.env
    while max_iter > 0 and raw.agents:
        if not wrapper._has_updated:
            raise AssertionError("need to call step() or reset() in a loop over `agent_iter`")
        wrapper._has_updated = False
        max_iter -= 1
        yield raw.agent_selection


class raw_env(AECEnv):
    metadata = {"render_modes": ["human", "ansi", "rgb_array"], "name": "allfives_v0", "is_parallelizable": False,
                "render_fps": 2}

    def __init__(self, num_players=2, render_mode=None, episode="game", reward="points",
                 encoder="default", auto_forced=False, backend="auto", **rule_options):
        super().__init__()
        unknown = sorted(set(rule_options) - set(RulesConfig.__dataclass_fields__) | ({"num_players"} & set(rule_options)))
        if unknown:
            allowed = ["num_players", "render_mode", *ENV_OPTIONS, "backend",
                       *[k for k in RulesConfig.__dataclass_fields__ if k != "num_players"]]
            raise UnknownOptionError(unknown, allowed)
        options = EnvOptions(episode=episode, reward=reward, auto_forced=auto_forced)
        check_choice("backend", backend, BACKENDS)
        if render_mode is not None and (not isinstance(render_mode, str)
                                        or render_mode not in self.metadata["render_modes"]):
            raise ValueError(f"render_mode={render_mode!r} is not allowed; allowed: None, {', '.join(map(repr, self.metadata['render_modes']))}")
        _check_encoder(encoder)
        self.config = RulesConfig(num_players=num_players, **rule_options)
        self.render_mode = render_mode
        self.episode = episode
        self.reward_mode = reward
        self.auto_forced = options.auto_forced
        self.encoder = make_encoder(encoder, self.config)
        self.core = make_core(backend, self.config, self.encoder, episode, self.auto_forced)
        self.backend = self.core.name
        self._rng = np.random.default_rng()
        self.agents = []  # until reset (step and last tell a missing reset from an ended episode)
        self._has_started = False

        n = self.config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {name: i for i, name in enumerate(self.possible_agents)}
        obs_space = spaces.Dict({
            "observation": spaces.Box(-np.inf, np.inf, (self.encoder.size,), np.float32),
            "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(NUM_ACTIONS) for a in self.possible_agents}
        # The core writes each seat's legal actions into one bytearray (cheap to
        # read from Python); users get int8 numpy rows over the same memory.
        self._mask_bytes = self.core.mask_bytes
        self._masks = list(self.core.masks)
        self._side_members = [[self.possible_agents[s] for s in range(n) if self.config.side_of(s) == side]
                              for side in range(self.config.num_sides)]

    @property
    def game(self):
        """The engine's :class:`~allfives_env.rules.game.Game` as it stands (read it, do not step it)."""
        return self.core.game

    def observation_space(self, agent):
        return self.observation_spaces[self._known(agent)]

    def action_space(self, agent):
        return self.action_spaces[self._known(agent)]

    def _known(self, agent):
        """``agent`` if it is one of ``possible_agents``, else a ``ValueError`` listing them."""
        if isinstance(agent, str) and agent in self.agent_name_mapping:
            return agent
        raise ValueError(f"agent {agent!r} is not in this game; allowed: {self.possible_agents}")

    # ------------------------------------------------------------------ reset
    def reset(self, seed=None, options=None):
        rng = self._rng if check_seed(seed) is None else np.random.default_rng(seed)
        position = _check_reset_options(options)
        gains = self.core.start(rng, position)  # raises on a bad position before changing anything
        self._rng = rng
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        scores = self.core.scores
        self.infos = {a: {"action_mask": NO_LEGAL_ACTIONS, "scores": scores} for a in self.agents}
        self._mask_holder = None
        self._rewards_paid = False
        self._has_started = True
        self._set_rewards(gains)
        self._after_transition()

    def last(self, observe=True):
        """PettingZoo's ``last()``; once every agent has stepped ``None`` (``agents`` is empty) it
        raises ``RuntimeError`` saying so (PettingZoo's own envs fail with a ``KeyError`` there)."""
        if not self.agents:
            if not self._has_started:
                raise ResetNeededError("last() before reset(); call reset() first")
            raise RuntimeError(f"last(): {NO_AGENTS}")
        return super().last(observe)

    # ------------------------------------------------------------------- step
    def step(self, action):
        if not self.agents:
            if not self._has_started:
                raise ResetNeededError("step() before reset(); call reset() first")
            raise IllegalActionError("the episode is over and every agent is done; call reset() first")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise IllegalActionError(
                    f"{agent} is done (the episode ended); step(None) is the only allowed action, then reset()")
            self._was_dead_step(action)
            return
        core = self.core
        if not (type(action) is int and 0 <= action < NUM_ACTIONS
                and self._mask_bytes[core.to_move * NUM_ACTIONS + action]):
            action = self._check_legal(agent, action)  # slow path: converts, or raises with the reason
        self._cumulative_rewards[agent] = 0.0
        self._set_rewards(core.step(action))
        self._after_transition()
        if self.render_mode == "human":
            self.render()

    def _check_legal(self, agent, action):
        if action is None:
            raise IllegalActionError(f"{agent} is to move; step(None) is only for agents that are done")
        action = as_action_id(action)
        mask = self._masks[self.agent_name_mapping[agent]]
        if not mask[action]:
            legal = [action_name(a) for a in np.flatnonzero(mask)]
            raise IllegalActionError(
                f"action {action} ({action_name(action)}) is not legal for {agent}; legal now: {legal}")
        return action

    def _set_rewards(self, gains):
        """Fill ``rewards`` for this step and add them to ``_cumulative_rewards``."""
        rewards = self.rewards
        if not any(gains):  # most steps score nothing: only clear what the last step paid
            if self._rewards_paid:
                for agent in rewards:
                    rewards[agent] = 0.0
                self._rewards_paid = False
            return
        scores = self.core.scores
        for agent in self.infos:  # every mode: "win" pays nothing now, but the score sheet changed
            self.infos[agent]["scores"] = scores
        mode = self.reward_mode
        if mode == "win":
            for agent in rewards:
                rewards[agent] = 0.0
            return
        values = side_rewards(gains, mode)
        for side, members in enumerate(self._side_members):
            for agent in members:
                rewards[agent] = values[side]
        self._rewards_paid = True
        self._accumulate_rewards()

    def _after_transition(self):
        """Mark the episode's end (with the win rewards), move the turn and hand out the masks.

        ``infos[agent]["action_mask"]`` is a copy of the mover's mask, and the shared read-only
        :data:`NO_LEGAL_ACTIONS` for every other seat (their masks are all zero): the core updates its
        masks in place, and a mask a caller keeps or edits must neither change later nor reach the
        legality check. (Inline: this runs every step.)"""
        core = self.core
        running = core.running
        if not running:
            if self.reward_mode == "win":
                self._set_win_rewards()
            for agent in self.agents:
                self.terminations[agent] = True
        mover = core.to_move
        agents = self.possible_agents
        self.agent_selection = agents[mover]
        holder = self._mask_holder
        if holder is not None and (holder != mover or not running):
            self.infos[agents[holder]]["action_mask"] = NO_LEGAL_ACTIONS
        if running:
            self.infos[agents[mover]]["action_mask"] = self._masks[mover].copy()
        self._mask_holder = mover if running else None

    def _set_win_rewards(self):
        core = self.core
        if core.game_over:
            winners = set(core.winners)
        else:  # a "hand" episode: rank the sides by the points gained this hand
            winners = ranked_winners([s - h for s, h in zip(core.scores, core.hand_start_scores)])
        outcomes = side_outcomes(winners, self.config.num_sides)
        for side, members in enumerate(self._side_members):
            value = outcomes[side]
            for agent in members:
                self.rewards[agent] = value
                self._cumulative_rewards[agent] += value
        self._rewards_paid = True

    # ---------------------------------------------------------------- observe
    def observe(self, agent):
        try:
            seat = self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise ValueError(f"agent {agent!r} is not in this game; allowed: {self.possible_agents}") from None
        self._require_reset("observe()")
        return {
            "observation": self.core.observe(seat),
            "action_mask": self._masks[seat].copy(),
        }

    def state(self) -> np.ndarray:
        """The full global state (for centralized critics): every hand by absolute
        seat (n x 28), the boneyard with its draw order (28 values, 1 for the next
        tile, falling towards 0 for later ones), then the public observation of
        the seat to move."""
        self._require_reset("state()")
        game = self.game
        n = self.config.num_players
        out = np.zeros(n * 28 + 28 + self.encoder.size, np.float32)
        for seat in range(n):
            for tile in range(28):
                if game.hands[seat] >> tile & 1:
                    out[seat * 28 + tile] = 1.0
        remaining = game.boneyard[game.bone_pos:]
        for rank, tile in enumerate(remaining):
            out[n * 28 + tile] = 1.0 - rank / len(remaining)
        out[n * 28 + 28:] = encoded(self.encoder, game, game.to_move)  # the documented signature (custom encoders)
        return out

    @property
    def state_space(self):
        size = self.config.num_players * 28 + 28 + self.encoder.size
        return spaces.Box(-np.inf, np.inf, (size,), np.float32)

    # ----------------------------------------------------------------- render
    def render(self):
        """``"ansi"``: the text picture; ``"human"``: print it; ``"rgb_array"``: a
        600x600x3 uint8 image of the layout (see :mod:`allfives_env.env.render.image`)."""
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode='ansi', 'human' or 'rgb_array'")
            return None
        self._require_reset("render()")
        if self.render_mode == "rgb_array":
            from .render.image import render_rgb

            return render_rgb(self.game, self.possible_agents)
        text = render_text(self.game, self.possible_agents)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self):
        pass

    def __getstate__(self):  # copy.deepcopy and pickle: the masks are views of the core's, linked again
        return {k: v for k, v in self.__dict__.items() if k not in ("_mask_bytes", "_masks")}

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._mask_bytes = self.core.mask_bytes
        self._masks = list(self.core.masks)
        # the shared read-only zero mask came back as a writeable copy: hand the masks out again
        # (a pickle from before the masks were copies has no _mask_holder)
        holder = state.get("_mask_holder", self.core.to_move if self.core.running else None)
        self._mask_holder = None
        for agent in getattr(self, "infos", {}):
            self.infos[agent]["action_mask"] = NO_LEGAL_ACTIONS
        if getattr(self, "_has_started", False) and holder is not None:
            self._mask_holder = holder
            self.infos[self.possible_agents[holder]]["action_mask"] = self._masks[holder].copy()

    def _require_reset(self, call):
        if not self._has_started:
            raise ResetNeededError(f"{call} before reset(); call reset() first")


def as_action_id(action) -> int:
    """``action`` as an int id of ``Discrete(114)`` (NumPy integers, whole floats and one-element arrays
    or tensors too), or :class:`IllegalActionError` saying what is allowed (bools and strings are refused)."""
    try:
        return check_action_id(action)
    except ValueError as err:
        raise IllegalActionError(str(err)) from None


def _check_encoder(encoder):
    """An encoder name (checked by ``make_encoder``), class or object with ``encode`` and ``size``."""
    if isinstance(encoder, str) or (isinstance(encoder, type) and hasattr(encoder, "encode")) \
            or (hasattr(encoder, "encode") and hasattr(encoder, "size")):
        return
    raise ValueError(f"encoder={encoder!r} is not allowed; allowed: {sorted(ENCODERS)}, an encoder class, "
                     "or an object with .encode and .size")


def _check_reset_options(options):
    """The position options of ``reset``. Unknown keys only warn: PettingZoo's
    api_test passes arbitrary reset options and expects them to be accepted."""
    if options is not None and not isinstance(options, Mapping):
        raise ValueError(f"options={options!r} is not allowed; allowed: None or a dict with any of "
                         f"{list(RESET_OPTIONS)}")
    options = dict(options or {})
    unknown = sorted(set(options) - set(RESET_OPTIONS))
    if unknown:
        gymnasium.logger.warn(f"ignoring unknown reset option(s) {unknown}; known: {list(RESET_OPTIONS)}")
    return {key: options[key] for key in RESET_OPTIONS if key in options}
