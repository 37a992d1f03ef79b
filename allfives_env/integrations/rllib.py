"""Ray RLlib adapter: All Fives as an RLlib ``MultiAgentEnv``, plus action masking for PPO.

Needs the ``rllib`` extra (``pip install -e ".[rllib]"``; tested with ray 2.60,
RLlib's new API stack: ``RLModule`` / ``EnvRunner`` / ``Learner``).

* :class:`AllFivesMultiAgentEnv` (``config`` dict: ``num_players`` and any
  AEC environment option) plays the AEC environment turn by turn: each step
  takes the action of the one agent to move and returns the observation of
  the next agent to move (the same agent after a draw). An agent's reward,
  returned with its next observation, is what its side gained since it last
  acted, other seats' turns included (the AEC env's ``last()``). At the end
  every agent gets its final observation and reward, and ``terminateds``
  has ``"__all__": True``.
* Observations are ``{"observations": float32 vector, "action_mask":
  float32 (114,)}``, the layout of RLlib's action-masking example.
* ``reward_scale`` (default 1.0) multiplies every reward, the illegal-action one too (points rewards reach
  35 in one play; PPO's value loss is clipped at ``vf_clip_param``).
* Illegal actions (RLlib's environment check samples unmasked actions):
  ``illegal_action="penalize"`` (the default) leaves the game unchanged and
  returns the same agent's observation with reward ``illegal_reward``
  (default -1.0); ``"raise"`` raises ``IllegalActionError``. An action that is not an id of
  ``Discrete(114)`` (a float such as 0.7, a string, a bool) raises it either way.
* :class:`ActionMaskingPPOModule` is RLlib's default PPO torch module with
  illegal logits pushed to the float minimum (in exploration, inference and
  training), so PPO samples only legal actions. :func:`masked_ppo_spec` gives
  its ``RLModuleSpec``.
* :class:`RLlibAgent` makes a trained module an arena agent (greedy over legal
  actions) for ``allfives_env.arena.run_match``.

Self-play: map every agent to one module (``policy_mapping_fn=lambda *a, **k:
"main"``); see ``examples/rllib_selfplay.py``.
"""

import numpy as np
from gymnasium import spaces

try:
    import torch
    from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as exc:  # pragma: no cover - the extras are installed where tests run
    raise ImportError(f'allfives_env.integrations.rllib needs RLlib and torch ({exc}): pip install -e ".[rllib,train]"',
                      name=exc.name) from exc

from ..env.aec import ResetNeededError, as_action_id, raw_env
from ..env.options import UnknownOptionError, check_choice, check_number, check_positive
from ..rules.actions import NUM_ACTIONS
from .gym_single import PolicyAgent

__all__ = ["AllFivesMultiAgentEnv", "ActionMaskingPPOModule", "masked_ppo_spec", "RLlibAgent", "observation_space"]


def observation_space(size: int) -> spaces.Dict:
    """The per-agent observation space for an encoder of ``size`` floats."""
    return spaces.Dict({
        "observations": spaces.Box(-np.inf, np.inf, (size,), np.float32),
        "action_mask": spaces.Box(0.0, 1.0, (NUM_ACTIONS,), np.float32),
    })


class AllFivesMultiAgentEnv(MultiAgentEnv):
    """All Fives for RLlib; ``config`` = ``{"num_players": n, "reward_scale": ..,
    "illegal_action": .., "illegal_reward": .., **AEC env options}``.

    Agent ids are ``"player_0" .. "player_{n-1}"``. Unknown options fail here,
    naming this env's own options, then the AEC environment's.
    """

    #: The options this env takes itself; the rest go to the AEC environment.
    OWN_OPTIONS = ("illegal_action", "illegal_reward", "reward_scale")

    def __init__(self, config=None):
        super().__init__()
        if config is not None and not isinstance(config, dict):  # RLlib's EnvContext is a dict
            raise ValueError(f"config={config!r} is not allowed; allowed: None or a dict of options")
        config = dict(config or {})
        self.illegal_action = check_choice("illegal_action", config.pop("illegal_action", "penalize"),
                                           ("penalize", "raise"))
        self.illegal_reward = check_number("illegal_reward", config.pop("illegal_reward", -1.0))
        self.reward_scale = check_positive("reward_scale", config.pop("reward_scale", 1.0))
        try:
            self.aec = raw_env(**config)
        except UnknownOptionError as exc:  # its own options first, then the env's
            raise UnknownOptionError(exc.unknown, [*self.OWN_OPTIONS, *exc.allowed]) from None
        self.possible_agents = list(self.aec.possible_agents)
        self.agents = list(self.possible_agents)
        space = observation_space(self.aec.encoder.size)
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in self.possible_agents}

    def reset(self, *, seed=None, options=None):
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        agent = self.aec.agent_selection
        return {agent: self._observe(agent)}, {agent: self._info(agent)}

    def step(self, action_dict):
        aec = self.aec
        if not aec.agents:  # agents never step None here: empty only before the first reset
            raise ResetNeededError("step() before reset(); call reset() first")
        if not isinstance(action_dict, dict):
            raise ValueError(f"action_dict={action_dict!r} is not allowed; allowed: a dict agent -> action")
        agent = aec.agent_selection
        if aec.terminations[agent]:
            raise ValueError("the episode is over; call reset() first")
        if set(action_dict) != {agent}:  # an action for another agent would be dropped unseen
            raise ValueError(f"{agent} is to move, alone; got actions for {sorted(map(str, action_dict))}; "
                             f"allowed: {{{agent!r}: action}}")
        action = as_action_id(action_dict[agent])  # not an id of the space: raised, penalized or not
        if self.illegal_action == "penalize" and not aec.observe(agent)["action_mask"][action]:
            reward = self._reward(agent) + self.illegal_reward * self.reward_scale
            aec._cumulative_rewards[agent] = 0.0  # reported now, not again with the next observation
            return ({agent: self._observe(agent)}, {agent: float(reward)}, {"__all__": False}, {"__all__": False},
                    {agent: {**self._info(agent), "illegal_action": True}})
        aec.step(action)  # IllegalActionError naming the legal actions
        if aec.terminations[agent]:
            done = list(self.possible_agents)
            self.agents = []
            return ({a: self._observe(a) for a in done}, {a: self._reward(a) for a in done},
                    {"__all__": True, **{a: True for a in done}}, {"__all__": False},
                    {a: self._info(a) for a in done})
        nxt = aec.agent_selection
        return ({nxt: self._observe(nxt)}, {nxt: self._reward(nxt)},
                {"__all__": False}, {"__all__": False}, {nxt: self._info(nxt)})

    def _reward(self, agent) -> float:
        """What ``agent`` gained since it last acted (the AEC env's ``last()``), scaled."""
        return float(self.aec._cumulative_rewards[agent]) * self.reward_scale

    def _observe(self, agent):
        obs = self.aec.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def _info(self, agent):
        return {"scores": self.aec.core.scores}

    def render(self):
        return self.aec.render()


class ActionMaskingPPOModule(DefaultPPOTorchRLModule):
    """RLlib's default PPO torch module over ``obs["observations"]``, with the
    logits of actions outside ``obs["action_mask"]`` set to the float minimum.

    Adapted from ``ray.rllib.examples.rl_modules.classes.action_masking_rlm``
    (examples are not a stable API, so the few lines live here)."""

    def __init__(self, *, observation_space=None, **kwargs):
        if not isinstance(observation_space, spaces.Dict) or set(observation_space.spaces) != {"observations",
                                                                                                "action_mask"}:
            raise ValueError(f"ActionMaskingPPOModule needs a Dict space with 'observations' and 'action_mask'; "
                             f"got {observation_space}")
        self.observation_space_with_mask = observation_space
        super().__init__(observation_space=observation_space["observations"], **kwargs)

    def setup(self):
        super().setup()
        self.observation_space = self.observation_space_with_mask

    def _forward_inference(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._mask(super()._forward_inference(batch, **kwargs), mask)

    def _forward_exploration(self, batch, **kwargs):
        mask, batch = self._split(batch)
        return self._mask(super()._forward_exploration(batch, **kwargs), mask)

    def _forward_train(self, batch, **kwargs):
        if isinstance(batch[Columns.OBS], dict):
            mask, batch = self._split(batch)
            batch["action_mask"] = mask
        return self._mask(super()._forward_train(batch, **kwargs), batch["action_mask"])

    def compute_values(self, batch, embeddings=None):
        if isinstance(batch[Columns.OBS], dict):
            mask, batch = self._split(batch)
            batch["action_mask"] = mask
        return super().compute_values(batch, embeddings)

    @staticmethod
    def _split(batch):
        obs = batch[Columns.OBS]
        batch = dict(batch)
        batch[Columns.OBS] = obs["observations"]
        return obs["action_mask"], batch

    @staticmethod
    def _mask(outs, mask):
        outs[Columns.ACTION_DIST_INPUTS] = outs[Columns.ACTION_DIST_INPUTS] + torch.clamp(torch.log(mask), min=FLOAT_MIN)
        return outs


def masked_ppo_spec(hiddens=(256, 256)) -> RLModuleSpec:
    """An ``RLModuleSpec`` for :class:`ActionMaskingPPOModule` with an MLP of ``hiddens``."""
    return RLModuleSpec(module_class=ActionMaskingPPOModule,
                        model_config={"fcnet_hiddens": list(hiddens), "head_fcnet_hiddens": [],
                                      "vf_share_layers": False})


class RLlibAgent(PolicyAgent):
    """A trained RLlib module as an arena agent: the legal action with the highest logit.

    ``module`` is an RLModule whose forward pass takes the adapter's
    observations (e.g. ``algo.get_module("main")``); ``encoder`` must be the
    one the adapter used (``"default"`` unless configured)."""

    name = "rllib"

    def __init__(self, module, encoder="default", name="rllib"):
        super().__init__(self._predict, obs="dict", encoder=encoder, name=name)
        self.module = module

    def _predict(self, obs, mask):
        """The module's most probable legal action (``mask``: bool, legal actions)."""
        batch = {Columns.OBS: {"observations": torch.from_numpy(obs["observation"])[None],
                               "action_mask": torch.from_numpy(mask.astype(np.float32))[None]}}
        with torch.no_grad():
            logits = self.module.forward_inference(batch)[Columns.ACTION_DIST_INPUTS][0].numpy()
        legal = np.flatnonzero(mask)
        return int(legal[int(np.argmax(logits[legal]))])

