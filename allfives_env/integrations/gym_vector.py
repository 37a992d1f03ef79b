"""Many copies of "one learner seat against fixed opponents", stepped together on the batched env.

:class:`LearnerGames` holds the logic (numpy, no library API); :class:`AllFivesVectorEnv`
is its ``gymnasium.vector.VectorEnv`` and :class:`~allfives_env.integrations.sb3_vec.AllFivesVecEnv`
its Stable-Baselines3 ``VecEnv``.

Every game of a :class:`~allfives_env.vector.VectorAllFives` has a learner seat
(``learner="random"``: drawn at every episode's start; or a fixed seat) or, with
``control="side"`` and 4 players, a learner partnership. The other seats are played
by batched agents (:mod:`allfives_env.agents.batched`: ``random``, ``greedy``,
``heuristic``, ``ppo:PATH``) inside the same step call: ``step(actions)`` plays the
learner's action in every game, then the opponents (only the games whose opponent
is to move advance, the others are SKIPped) until every game is back at a learner
decision. So each step returns one learner decision per game.

Per game, exactly as :class:`~allfives_env.integrations.gym_single.SingleAgentAllFives`
(a test compares the two on the same deals): the reward is what the learner's side
gained since its previous decision, opponents' turns included (the AEC env's
``last()`` semantics in every ``reward`` mode); what the side gained before its first
decision of an episode is added to that decision's step; an episode is a game or a
hand (``episode=``); there is no truncation; ``illegal_action="penalize"`` answers an
action that is in ``Discrete(114)`` but not legal with ``illegal_reward`` and the same
observation (the game is not stepped) and marks it in ``infos["illegal_action"]``
((B,) bool), ``"raise"`` raises ``ValueError``.

Auto-reset in the same step (Gymnasium's ``AutoresetMode.SAME_STEP``, SB3's
convention): where an episode ends, the returned observation is already the next
episode's first learner decision; the ended episode's last observation, seen by the
learner's seat, is ``final_obs``.

Masks: ``action_masks()`` (B, 114) bool, what sb3-contrib's ``MaskablePPO`` calls,
and ``infos["action_mask"]`` (and ``obs["action_mask"]`` with ``obs="dict"``).
"""

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..agents.batched import make_batched_agent
from ..env.options import UnknownOptionError, check_choice, check_positive, check_seed
from ..rules.actions import NUM_ACTIONS, action_name
from ..vector import SKIP, VectorAllFives
from .gym_single import OBS_MODES, check_learner_options

__all__ = ["LearnerGames", "AllFivesVectorEnv"]


class LearnerGames:
    """B games, one learner seat (or side) each, opponents played inside :meth:`step`.

    Args:
        num_envs: B.
        num_players: 2, 3 or 4.
        learner: ``"random"`` (a seat drawn per game at every episode start) or a seat.
        opponents: a batched-agent spec for every non-learner seat, or a list with one per
            non-learner seat in play order after the learner (relative seats 1, 2, ...;
            with ``control="side"``: the two opponents).
        control: ``"seat"`` or ``"side"`` (4 players: the learner plays both partners).
        illegal_action, illegal_reward: see the module docstring.
        reward_scale: multiplies every reward (the illegal-action reward too), e.g. 1/35 for points.
        **options: the batched env's options (``episode``, ``reward``, ``auto_forced``, rule variants).
    """

    def __init__(self, num_envs, num_players=2, learner="random", opponents="greedy", control="seat",
                 illegal_action="penalize", illegal_reward=-1.0, reward_scale=1.0, **options):
        self.reward_scale = check_positive("reward_scale", reward_scale)
        self.venv = VectorAllFives(num_envs, num_players=num_players, **options)
        n = self.num_players = self.venv.num_players
        self.num_envs = B = self.venv.num_envs
        self.learner, self.illegal_reward = check_learner_options(n, learner, control, illegal_action, illegal_reward)
        self.illegal_action = illegal_action
        self.control = control
        #: the relative seats (1..n-1) the opponents play, in play order
        partner = self.venv.config.partner_of(0)  # the learner's partner, relative to it (R2)
        self.opponent_seats = [r for r in range(1, n) if not (control == "side" and r == partner)]
        self.opponent_specs = self._opponent_specs(opponents)
        self.observation_size = self.venv.observation_size
        self.seat = np.zeros(B, np.int64)  # each game's learner seat (the first partner with control="side")
        self._all = np.arange(B)
        self._rewards = np.zeros(B, np.float32)
        self._pending = np.zeros(B, np.float32)
        self._done = np.zeros(B, np.bool_)
        self.illegal = np.zeros(B, np.bool_)  # which games' last learner action was illegal (penalized)
        self._final_obs = np.zeros((B, self.observation_size), np.float32)
        self._final_scores = np.zeros((B, self.venv.num_sides), np.float64)
        self._final_outcome = np.zeros(B, np.float32)
        self._skip = np.full(B, SKIP, np.int64)
        self._buffer = np.zeros(B, np.int64)
        self._agents = None
        self._started = False

    def _opponent_specs(self, opponents):
        count = len(self.opponent_seats)
        if isinstance(opponents, (list, tuple)):
            if len(opponents) != count:
                raise ValueError(f"{len(opponents)} opponent specs for {count} non-learner seat(s); give one spec, "
                                 f"or a list of {count} in play order after the learner")
            specs = list(opponents)
        else:
            specs = [opponents] * count
        for i, spec in enumerate(specs):  # checked now: a bad spec fails at construction, not at reset
            try:
                make_batched_agent(spec, self.venv)
            except ValueError as exc:
                raise ValueError(f"opponents[{i}]: {exc}") from None
        return specs

    # ------------------------------------------------------------------ API
    def reset(self, seed=None):
        """New games in every env; ``seed`` fixes every later deal, learner seat and opponent choice (for
        this ``num_envs``: the learner seats come from one generator, drawn as episodes end)."""
        check_seed(seed)
        env_seed, agent_seed, seat_seed = np.random.SeedSequence(seed).generate_state(3, np.uint64)
        self._rng = np.random.default_rng(int(seat_seed))
        agents = {}  # one batched agent per distinct spec, shared by the seats it plays
        for spec in self.opponent_specs:
            if spec not in agents:
                agents[spec] = make_batched_agent(spec, self.venv, seed=[int(agent_seed), len(agents)])
        self._agents = agents
        self._by_seat = [agents[spec] for spec in self.opponent_specs]
        out = self.venv.reset(seed=int(env_seed))
        for agent in agents.values():
            agent.after_step(out)
        self._draw_seats(np.ones(self.num_envs, np.bool_))
        self._started = True
        self._pending[:] = 0.0
        self.illegal[:] = False
        self._done[:] = True  # every game starts an episode: what the opponents gain goes to its first step
        self._play_opponents()
        self._done[:] = False
        return self.venv.current()

    def step(self, actions):
        """One learner decision in every game (``actions`` (B,) ints in 0..113); returns
        ``(out, rewards, terminated)``: the batched env's output at the next learner decisions,
        each game's reward and whether its episode ended (then see :meth:`final`); :attr:`illegal`
        marks the games whose action was illegal and penalized. All are buffers that the next call
        overwrites (the library adapters copy them)."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        actions = self._check_actions(actions)
        out = self.venv.current()
        legal = out.mask[self._all, actions].astype(bool)
        rewards = self._rewards
        if not legal.all() and self.illegal_action == "raise":
            b = int(np.flatnonzero(~legal)[0])
            raise ValueError(f"game {b}: action {int(actions[b])} ({action_name(int(actions[b]))}) is not legal "
                             f"for the learner; legal now: {self.venv.legal_actions(b)}; no game was stepped")
        rewards[:] = self._pending
        self._pending[:] = 0.0
        np.logical_not(legal, out=self.illegal)
        if not legal.all():
            rewards[~legal] += self.illegal_reward
            actions = np.where(legal, actions, SKIP)
        self._done[:] = False
        self._advance(actions)
        self._play_opponents()
        if self.reward_scale != 1.0:
            rewards *= self.reward_scale
        return self.venv.current(), rewards, self._done

    def action_masks(self) -> np.ndarray:
        """(B, 114) bool: each game's legal learner actions now."""
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        return self.venv.current().mask.astype(bool)

    def final(self):
        """``(final_obs, final_scores, final_outcome)`` of the episodes that ended in the last call
        (rows where ``terminated``): the learner seat's last observation (with ``control="side"``: the
        partnership's first seat's), each side's final score
        and the learner's outcome (+1 won, -1 lost, 0 drawn-game winner)."""
        return self._final_obs, self._final_scores, self._final_outcome

    # ------------------------------------------------------------- internals
    def _check_actions(self, actions):
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(f"actions has shape {actions.shape}; expected ({self.num_envs},), one per game")
        if actions.dtype.kind not in "iu":
            raise TypeError(f"actions has dtype {actions.dtype}; expected integer action ids 0..{NUM_ACTIONS - 1}")
        if actions.size and (actions.min() < 0 or actions.max() >= NUM_ACTIONS):
            b = int(np.flatnonzero((actions < 0) | (actions >= NUM_ACTIONS))[0])
            raise ValueError(f"game {b}: action {int(actions[b])} is outside Discrete({NUM_ACTIONS}); "
                             f"allowed: 0..{NUM_ACTIONS - 1}")
        return actions.astype(np.int64, copy=False)

    def _is_learner(self, to_move):
        if self.control == "side":
            side_of = self.venv.config.side_of
            return side_of(to_move) == side_of(self.seat)
        return to_move == self.seat

    def _viewers(self):
        """Who sees each game's final observation: the learner seat, or with ``control="side"`` the
        partnership's first seat (as :class:`SingleAgentAllFives` reports it)."""
        # R2: a side's index is its first seat
        return self.venv.config.side_of(self.seat) if self.control == "side" else self.seat

    def _draw_seats(self, which):
        """A learner seat for each game in ``which`` (a bool mask) that starts an episode."""
        if self.learner == "random":
            self.seat[which] = self._rng.integers(self.num_players, size=int(which.sum()))
        else:
            self.seat[which] = self.learner

    def _advance(self, actions):
        """One batched step; credits the learner side's gains and records the episodes that end."""
        for agent in self._agents.values():
            agent.before_step(actions)
        out = self.venv.step(actions, final_viewers=self._viewers())
        for agent in self._agents.values():
            agent.after_step(out)
        gain = out.rewards[self._all, self.seat]
        was_done = self._done
        self._rewards += np.where(was_done, 0.0, gain)
        self._pending += np.where(was_done, gain, 0.0)
        ended = out.terminated
        if ended.any():
            first = ended & ~was_done
            self._final_obs[first] = out.final_obs[first]
            self._final_scores[first] = out.final_scores[first]
            self._final_outcome[first] = out.final_outcome[first, self.seat[first]]
            # an episode that ended before the learner decided at all is not the learner's: its gains are dropped
            self._pending[ended & was_done] = 0.0
            self._done |= ended
            self._draw_seats(ended)

    def _play_opponents(self):
        """Opponents move (SKIP elsewhere) until every game waits for its learner."""
        n = self.num_players
        while True:
            out = self.venv.current()
            waiting = ~self._is_learner(out.to_move)
            if not waiting.any():
                return
            actions = self._skip.copy()
            relative = (out.to_move - self.seat) % n
            for rel, agent in zip(self.opponent_seats, self._by_seat):
                games = np.flatnonzero(waiting & (relative == rel))
                if len(games):
                    actions[games] = agent.actions(out, games, self._buffer[:len(games)])
            self._advance(actions)


class AllFivesVectorEnv(gymnasium.vector.VectorEnv):
    """A ``gymnasium.vector.VectorEnv`` of B learner games (see the module docstring).

    ``AllFivesVectorEnv(num_envs, num_players=2, learner="random", opponents="greedy", obs="flat", ...)``
    takes :class:`LearnerGames`' arguments plus ``obs`` (``"flat"``: the (B, D) vectors; ``"dict"``:
    ``{"observation", "action_mask"}``). ``infos`` holds ``action_mask``, ``seat`` and ``illegal_action``
    (B, ...), and where episodes ended ``final_obs`` and ``final_info`` (``scores``, ``outcome``), as
    Gymnasium's same-step auto-reset writes them; every key with its ``_key`` mask (B,) bool.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs, num_players=2, learner="random", opponents="greedy", control="seat",
                 obs="flat", illegal_action="penalize", illegal_reward=-1.0, reward_scale=1.0, **options):
        check_choice("obs", obs, OBS_MODES)
        try:
            self.games = LearnerGames(num_envs, num_players, learner, opponents, control, illegal_action,
                                      illegal_reward, reward_scale, **options)
        except UnknownOptionError as exc:
            raise exc.with_options_of(AllFivesVectorEnv.__init__) from None
        self.num_envs = self.games.num_envs
        self.obs_mode = obs
        vector = spaces.Box(-np.inf, np.inf, (self.games.observation_size,), np.float32)
        if obs == "dict":
            self.single_observation_space = spaces.Dict(
                {"observation": vector, "action_mask": spaces.Box(0, 1, (NUM_ACTIONS,), np.int8)})
        else:
            self.single_observation_space = vector
        self.single_action_space = spaces.Discrete(NUM_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)

    def reset(self, *, seed=None, options=None):
        if options:
            raise ValueError(f"options={options!r} is not allowed; the vector env takes no reset options")
        out = self.games.reset(seed=seed)  # one seed for every game, checked there
        return self._observe(out), self._infos(out, None)

    def step(self, actions):
        out, rewards, terminated = self.games.step(actions)
        truncated = np.zeros(self.num_envs, np.bool_)
        return (self._observe(out), rewards.copy(), terminated.copy(), truncated,
                self._infos(out, terminated))

    def action_masks(self) -> np.ndarray:
        return self.games.action_masks()

    def _observe(self, out):
        if self.obs_mode == "dict":
            return {"observation": out.obs.copy(), "action_mask": out.mask.copy()}
        return out.obs.copy()

    def _infos(self, out, terminated):
        every = np.ones(self.num_envs, bool)  # Gymnasium's ``_key``: which games hold ``key`` (all of them here)
        infos = {"action_mask": out.mask.astype(bool), "_action_mask": every, "seat": self.games.seat.copy(),
                 "_seat": every.copy(), "illegal_action": self.games.illegal.copy(), "_illegal_action": every.copy()}
        if terminated is not None and terminated.any():
            final_obs, final_scores, final_outcome = self.games.final()
            done = terminated.copy()
            if self.obs_mode == "dict":
                mask = np.zeros((self.num_envs, NUM_ACTIONS), np.int8)
                infos["final_obs"] = {"observation": np.where(done[:, None], final_obs, 0.0),
                                      "action_mask": mask}
            else:
                infos["final_obs"] = np.where(done[:, None], final_obs, 0.0).astype(np.float32)
            infos["_final_obs"] = done
            infos["final_info"] = {"scores": np.where(done[:, None], final_scores, 0.0), "_scores": done,
                                   "outcome": np.where(done, final_outcome, 0.0), "_outcome": done}
            infos["_final_info"] = done
        return infos

