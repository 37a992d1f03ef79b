"""Adapters to other RL libraries.

* :mod:`.gym_single`: :class:`SingleAgentAllFives`, a ``gymnasium.Env`` for one
  learning seat (or partnership) against arena agents; works with
  Stable-Baselines3 and sb3-contrib's ``MaskablePPO`` (``action_masks()``).
  Importing this package registers it as ``"AllFives-v0"``.
* :mod:`.gym_vector`: :class:`AllFivesVectorEnv`, a ``gymnasium.vector.VectorEnv``
  of B learner games on the batched env (opponents played by batched agents
  inside the step; :class:`LearnerGames` is its library-free core).
* :mod:`.sb3_vec`: the same games as a Stable-Baselines3 ``VecEnv``
  (``AllFivesVecEnv``); it imports SB3, so it is not imported here.
* :mod:`.openspiel`: the OpenSpiel Python game ``python_allfives`` and the
  ``openspiel:BOT`` arena agents; it imports pyspiel, so it is not imported here:
  :data:`OPENSPIEL_AGENT` plugs the agent into the agent specs (the entry point
  ``openspiel`` of group ``allfives_env.agents`` in pyproject.toml).
* :mod:`.rllib`: :class:`~allfives_env.integrations.rllib.AllFivesMultiAgentEnv`
  (Ray RLlib's multi-agent API) and an action-masking PPO ``RLModule``. It
  imports ray, so it is not imported here; install the ``rllib`` extra.

PettingZoo's parallel API is not offered: in a turn-based game with repeated
draws one agent acts at a time, so a parallel step would hold one action and
``n - 1`` placeholders. Use the AEC environment (``allfives_env.env()``) for
per-agent training, or :class:`allfives_env.vector.VectorAllFives` to step
many games at once.
"""

import gymnasium

from ..agents.registry import AgentPlugin
from .gym_single import PolicyAgent, SingleAgentAllFives
from .gym_vector import AllFivesVectorEnv, LearnerGames

ENV_ID = "AllFives-v0"
#: The ``openspiel:BOT`` agent spec, imported when first built.
OPENSPIEL_AGENT = AgentPlugin("allfives_env.integrations.openspiel", "OpenSpielAgent", argument="BOT",
                              extra="openspiel")

if ENV_ID not in gymnasium.registry:
    gymnasium.register(id=ENV_ID, entry_point="allfives_env.integrations.gym_single:SingleAgentAllFives")

__all__ = ["SingleAgentAllFives", "PolicyAgent", "AllFivesVectorEnv", "LearnerGames", "ENV_ID"]
