"""A Stable-Baselines3 ``VecEnv`` over the batched env (needs the ``sb3`` extra).

``AllFivesVecEnv(num_envs, num_players=2, opponents="greedy", ...)`` takes the
arguments of :class:`~allfives_env.integrations.gym_vector.LearnerGames` (learner
seat, opponents, control, illegal actions, env options) and gives SB3 what it
expects: flat float32 observations, ``dones`` with same-step auto-reset and
``infos[i]["terminal_observation"]`` (the learner's last view), plus
``infos[i]["outcome"]`` and ``["scores"]`` of the ended episode, and
``infos[i]["illegal_action"]`` on every step. sb3-contrib's
``MaskablePPO`` finds the masks through ``env_method("action_masks")``; wrap the
env in ``VecMonitor`` for episode statistics::

    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.vec_env import VecMonitor
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    env = VecMonitor(AllFivesVecEnv(64, num_players=2, opponents="greedy", reward="zero_sum"))
    MaskablePPO("MlpPolicy", env).learn(100_000)

It is not imported by ``allfives_env.integrations`` (SB3 is an optional extra).
"""

from numbers import Integral

import numpy as np
from gymnasium import spaces

try:
    from stable_baselines3.common.vec_env import VecEnv
except ImportError as exc:  # pragma: no cover - the extra is installed where tests run
    raise ImportError(f'allfives_env.integrations.sb3_vec needs Stable-Baselines3 ({exc}): pip install -e ".[sb3]"',
                      name=exc.name) from exc

from ..env.options import UnknownOptionError, check_seed
from ..rules.actions import NUM_ACTIONS
from .gym_vector import LearnerGames

__all__ = ["AllFivesVecEnv"]


class AllFivesVecEnv(VecEnv):
    """B learner games as one SB3 ``VecEnv`` (see the module docstring)."""

    def __init__(self, num_envs, num_players=2, learner="random", opponents="greedy", control="seat",
                 illegal_action="penalize", illegal_reward=-1.0, reward_scale=1.0, **options):
        if "obs" in options:  # an option of the Gymnasium wrappers, easily carried over
            raise ValueError(f"obs={options['obs']!r} is not an option here: SB3's VecEnv observations are always "
                             "flat vectors (obs='dict' is for AllFivesVectorEnv and SingleAgentAllFives)")
        try:
            self.games = LearnerGames(num_envs, num_players, learner, opponents, control, illegal_action,
                                      illegal_reward, reward_scale, **options)
        except UnknownOptionError as exc:
            raise exc.with_options_of(AllFivesVecEnv.__init__) from None
        self.render_mode = None
        observation_space = spaces.Box(-np.inf, np.inf, (self.games.observation_size,), np.float32)
        super().__init__(self.games.num_envs, observation_space, spaces.Discrete(NUM_ACTIONS))
        self._actions = None

    def seed(self, seed=None):
        """The seed of the next :meth:`reset` (SB3's contract: used then, not now), checked now: a bad one
        is a one-line ``ValueError`` here, not at a later reset. ``None``: fresh deals at the next reset
        (SB3's own ``seed(None)`` would draw one from NumPy's global generator)."""
        check_seed(seed)
        self._seeds = [None if seed is None else seed + index for index in range(self.num_envs)]
        return self._seeds

    def reset(self):
        seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
        out = self.games.reset(seed=seed)
        self._reset_seeds()
        return out.obs.copy()

    def step_async(self, actions):
        actions = np.asarray(actions)
        if actions.size != self.num_envs:  # (B,) or SB3's (B, 1)
            raise ValueError(f"actions has shape {actions.shape}; expected ({self.num_envs},), one per game")
        self._actions = actions.reshape(self.num_envs)

    def step_wait(self):
        out, rewards, terminated = self.games.step(self._actions)
        infos = [{"illegal_action": bool(illegal)} for illegal in self.games.illegal]
        if terminated.any():
            final_obs, final_scores, final_outcome = self.games.final()
            for b in np.flatnonzero(terminated):
                infos[b].update(terminal_observation=final_obs[b].copy(), outcome=float(final_outcome[b]),
                                scores=final_scores[b].copy(), **{"TimeLimit.truncated": False})
        return out.obs.copy(), rewards.copy(), terminated.copy(), infos

    def action_masks(self) -> np.ndarray:
        """(B, 114) bool: the legal learner actions of every game."""
        return self.games.action_masks()

    def close(self):
        pass

    # ------------------------------------------------ the per-env calls SB3 makes
    def get_attr(self, attr_name, indices=None):
        value = getattr(self, attr_name)
        return [value] * len(self._indices(indices))

    def set_attr(self, attr_name, value, indices=None):
        self._indices(indices)  # checked before anything is set
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        rows = self._indices(indices)
        if method_name == "action_masks":  # one mask per env, as MaskablePPO stacks them
            masks = self.games.action_masks()
            return [masks[i] for i in rows]
        result = getattr(self, method_name)(*method_args, **method_kwargs)
        return [result] * len(rows)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._indices(indices))

    def _indices(self, indices):
        """The env indices SB3 names (None: all), each in range as list indexing takes it (-B..B-1)."""
        rows = list(self._get_indices(indices))
        n = self.num_envs
        wrong = [i for i in rows if isinstance(i, bool) or not isinstance(i, Integral) or not -n <= i < n]
        if wrong:  # an attribute was answered for them all the same
            raise ValueError(f"indices {wrong} name no env; allowed: env indices {-n}..{n - 1}")
        return rows
