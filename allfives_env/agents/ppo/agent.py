"""Learned PPO policies as arena agents: the ``ppo:PATH`` spec.

``make_agent("ppo:checkpoints/ppo_2p.pt")`` (or ``ppo:PATH,sample=true``)
loads a policy file written by ``training/`` (a full training checkpoint or a
small policy export; both hold the same ``"policy"`` record,
:mod:`.policy_file`) and plays with it.
A loaded policy assumes nothing about its opponents: its derived inputs are
read without any opponent model, whatever features it was trained with.
``infer=greedy`` opts into the greedy exclusions of a ``lookahead`` policy's
inputs (``features=lookahead_infer``, :mod:`.features`: exact against greedy
opponents, a model against others); they come from replaying the view's events.

At play time the agent encodes ``view`` with the
:class:`~allfives_env.env.encoders.DefaultEncoder`, appends the record's derived
features and runs the network in numpy (:class:`NumpyPolicy`: one decision at a
time is faster without torch's per-call overhead); it takes the most likely
legal action, or samples one with ``sample=true``.
"""

import os

import numpy as np

from ...env.encoders import DefaultEncoder
from ...env.options import check_bool
from ...rules.actions import DRAW, NUM_ACTIONS, slot_of, tile_of
from ..base import BaseAgent
from ..registry import resolve_policy_path
from .features import FEATURES, PolicyInput
from .policy_file import (  # noqa: F401
    FORMAT,
    VERSION,
    CheckpointError,
    build_policy,
    check_player_count,
    check_policy_file,
    check_rules,
    load_policy,
    policy_features,
    policy_record,
    read_checkpoint,
)


class NumpyPolicy:
    """A :class:`~allfives_env.agents.ppo.network.PolicyNet`'s weights as numpy arrays, with its logits."""

    def __init__(self, net):
        self.obs_dim, self.activation = net.obs_dim, net.activation
        self.layers = [(m.weight.detach().cpu().numpy().T.copy(), m.bias.detach().cpu().numpy().copy())
                       for m in net.trunk if hasattr(m, "weight")]
        self.head = (net.policy_head.weight.detach().cpu().numpy().T.copy(),
                     net.policy_head.bias.detach().cpu().numpy().copy())
        self.value_head = (net.value_head.weight.detach().cpu().numpy()[0].copy(),
                           float(net.value_head.bias.detach().cpu().numpy()[0]))
        self.direct = None if net.direct is None else net.direct.weight.detach().cpu().numpy().T.copy()
        self.scorer = _numpy_scorer(net)

    def _act_fn(self, x):
        return np.maximum(x, 0.0) if self.activation == "relu" else np.tanh(x)

    def trunk(self, x: np.ndarray) -> np.ndarray:
        for w, b in self.layers:
            x = self._act_fn(x @ w + b)
        return x

    def _placement_scores(self, x: np.ndarray, h: np.ndarray, rows: np.ndarray, placements: np.ndarray):
        """The action scorer's score of ``placements[i]`` in input row ``rows[i]`` (``x``, ``h``: inputs
        and trunk states, one row per position), as PolicyNet._action_scores computes it."""
        context_w, context_b, tile, slot, features_w, out_w, out_b, offsets, deep = self.scorer
        hidden = ((h @ context_w + context_b)[rows] + tile[tile_of(placements)] + slot[slot_of(placements)]
                  + x[rows[:, None], offsets[None, :] + placements[:, None]] @ features_w)
        hidden = self._act_fn(hidden)
        scores = hidden @ out_w + out_b
        if deep is not None:
            deep_w, deep_b, deep_out = deep
            scores = scores + self._act_fn(hidden @ deep_w + deep_b) @ deep_out
        return scores

    def logits(self, obs: np.ndarray, legal=None) -> np.ndarray:
        """The network's logits for one input vector (as PolicyNet computes them). With an action
        scorer, only the placements in ``legal`` (all when None) get their score."""
        h = self.trunk(obs)
        out = h @ self.head[0] + self.head[1]
        if self.direct is not None:
            out = out + obs @ self.direct
        if self.scorer is not None:
            placements = np.arange(DRAW) if legal is None else np.asarray(legal)
            placements = placements[placements < DRAW]
            out = out.copy()
            out[placements] += self._placement_scores(obs[None, :], h[None, :], np.zeros(len(placements), np.int64),
                                                      placements)
        return out

    def values(self, x: np.ndarray) -> np.ndarray:
        """The value head's estimate of each input row ``x`` (R, obs_dim): the expected return."""
        return self.trunk(x) @ self.value_head[0] + self.value_head[1]

    def batch_logits(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The logits of many input rows ``x`` (R, obs_dim) at once; with an action scorer, the
        placements legal in ``mask`` (R, 114) get their score (as :meth:`logits` row by row)."""
        h = self.trunk(x)
        out = h @ self.head[0] + self.head[1]
        if self.direct is not None:
            out += x @ self.direct
        if self.scorer is not None:
            rows, placements = np.nonzero(mask[:, :DRAW])
            out[rows, placements] += self._placement_scores(x, h, rows, placements)
        return out


def _numpy_scorer(net):
    """The action scorer's weights as numpy arrays (None without one)."""
    if not net.action_width:
        return None
    arrays = (net.action_context.weight.T, net.action_context.bias, net.action_tile, net.action_slot,
              net.action_features.weight.T, net.action_out.weight[0], net.action_out.bias[0])
    deep = None
    if net.action_deep is not None:
        deep = tuple(a.detach().cpu().numpy().copy() for a in (net.action_deep.weight.T, net.action_deep.bias,
                                                                 net.action_deep_out.weight[0]))
    return tuple(a.detach().cpu().numpy().copy() for a in arrays) + (np.array(net.action_inputs, np.int64), deep)


#: (path, mtime, size) -> (rules, features, NumpyPolicy): a file is read with torch once per process, and worker
#: processes forked by the arena reuse the parent's copy instead of calling torch after a fork (which can hang).
_LOADED = {}


def load_numpy_policy(path):
    """``(rules, features, NumpyPolicy)`` of a policy file, loaded once per process (:data:`_LOADED`)."""
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _LOADED:
        net, rules, features = load_policy(path)
        _LOADED[key] = (rules, features, NumpyPolicy(net))
    return _LOADED[key]


class PPOAgent(BaseAgent):
    """ppo:PATH: a trained PPO policy (most likely legal action; ``sample=true`` samples; ``infer=greedy``
    models the opponents as greedy players, off by default; ``any_rules=true`` plays it under other
    scoring rules than it was trained for, which it refuses by default)."""

    compiles_on_first_call = True  # the derived inputs are numba kernels

    name = "ppo"

    def __init__(self, path, sample=False, infer="off", any_rules=False):
        super().__init__()
        self.any_rules = check_bool("any_rules", any_rules)
        if infer is None:
            infer = "off"
        if infer not in ("off", "greedy"):
            raise ValueError(f"infer={infer!r} is not allowed; allowed: 'off' (the default: no opponent model) "
                             "or 'greedy'")
        path = resolve_policy_path(path)
        check_policy_file(path)
        rules, features, policy = load_numpy_policy(path)
        self._setup(path, rules, features, policy, sample, infer)

    @classmethod
    def from_network(cls, net, rules, features, sample=False):
        """An agent playing ``net`` (a live :class:`~allfives_env.agents.ppo.network.PolicyNet`) as it
        is now, without a file: what training evaluates (with the inputs it trains on)."""
        agent = cls.__new__(cls)
        BaseAgent.__init__(agent)
        agent.any_rules = False
        agent._setup("<network in memory>", rules, features, NumpyPolicy(net), sample, None)
        return agent

    def _setup(self, path, rules, features, policy, sample, infer):
        self.path = path
        self.sample = check_bool("sample", sample)
        self.rules, self.policy, self.obs_dim = rules, policy, policy.obs_dim
        self.num_players = rules.num_players
        self.features = features if infer is None else with_inference(features, infer == "greedy", path)
        self.infer = "greedy" if self.features.endswith("_infer") else "off"
        self._exclusions = np.zeros((1, 4), np.int64)
        self._encoders, self._inputs = {}, {}
        self._mask = np.zeros((1, NUM_ACTIONS), np.int8)

    def reset(self, seat, config, rng):
        if self.any_rules:
            check_player_count(self.path, self.num_players, config.num_players)
        else:
            check_rules(self.path, self.rules, config, "ppo:PATH,any_rules=true (PPOAgent(path, any_rules=True))")
        super().reset(seat, config, rng)
        if config not in self._encoders:
            policy_input = PolicyInput(self.features, config.num_players, config.divisor)
            if policy_input.size != self.obs_dim:
                raise ValueError(f"{self.path!r} expects inputs of size {self.obs_dim}; this game's encoder "
                                 f"with features={self.features!r} gives {policy_input.size}")
            self._encoders[config] = DefaultEncoder(config)
            self._inputs[config] = policy_input

    def input_vector(self, view, legal_actions) -> np.ndarray:
        """The network's input for ``view``: the default observation, then the record's derived features."""
        encoder = self._encoders.get(view.config) or DefaultEncoder(view.config)
        obs = view.observation(encoder.encode)
        if self.features == "none":
            return obs
        policy_input = self._inputs.get(view.config) or PolicyInput(self.features, view.config.num_players,
                                                                    view.config.divisor)
        mask = self._mask
        mask[0] = 0
        mask[0, np.asarray(legal_actions)] = 1
        return policy_input(obs[None, :], mask, exclusions=self._relative_exclusions(view))[0]

    def _relative_exclusions(self, view):
        """With ``infer=greedy``: per relative seat, the tiles its greedy play this hand rules out
        (:func:`allfives_env.agents.inference.greedy_exclusions`; the own side gets none); else None."""
        if self.infer != "greedy":
            return None
        from ..inference import view_exclusions

        forbid = view_exclusions(view, np.zeros(4, np.int64))
        n = view.num_players
        for rel in range(4):
            self._exclusions[0, rel] = forbid[(view.seat + rel) % n] if rel < n else 0
        return self._exclusions

    def logits(self, obs: np.ndarray, legal=None) -> np.ndarray:
        """The network's logits for one input vector (see :meth:`NumpyPolicy.logits`)."""
        return self.policy.logits(obs, legal)

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:
            return legal_actions[0]
        legal = np.asarray(legal_actions)
        chosen = self.policy.logits(self.input_vector(view, legal), legal)[legal]  # raw logits rank as log-softmax
        if not self.sample:
            return int(legal[int(np.argmax(chosen))])
        p = np.exp(chosen - chosen.max())
        p /= p.sum()
        return int(legal[int(self.rng.choice(len(legal), p=p))])


def with_inference(features: str, infer: bool, path) -> str:
    """The feature set ``features`` with (``infer``) or without the greedy exclusions."""
    base = features[:-len("_infer")] if features.endswith("_infer") else features
    if not infer:
        return base
    if base + "_infer" not in FEATURES:
        raise ValueError(f"{path!r} uses features={features!r}: infer=greedy needs lookahead features")
    return base + "_infer"


__all__ = ["PPOAgent", "NumpyPolicy", "CheckpointError", "read_checkpoint", "policy_record", "policy_features",
           "build_policy", "load_policy", "FORMAT", "VERSION"]
