"""Learned PPO policies as arena agents: the ``ppo:PATH`` spec.

``make_agent("ppo:checkpoints/ppo_2p.pt")`` (or ``ppo:PATH,sample=true``)
loads a checkpoint written by ``training/`` (a full training checkpoint or a
small policy export; both hold the same ``"policy"`` record) and plays with
it. Loading needs torch but none of the training code.
``ppo:A.pt,ensemble=B.pt+C.pt`` plays an ensemble: the mean of the members'
log-probabilities over the legal actions (paths joined by ``+``; a path
holding ``+`` or ``,`` cannot be named there).
``infer=greedy`` / ``infer=off`` switches the greedy exclusions of a
``reply_control`` or ``lookahead`` policy's inputs on or off (``features=*_infer``,
:mod:`allfives_env.agents.ppo_features`); by default the record's features
decide. The exclusions come from replaying the view's events.

Checkpoint record (``torch.save`` of a dict)::

    {"format": "allfives-ppo", "version": 1,
     "policy": {"net": {"obs_dim", "hidden_sizes", "activation", "skip"[, "action_width", "action_inputs"[, "action_depth"]]},
                "state_dict": {...}, "num_players": n, "rules": RulesConfig.to_dict(),
                "encoder": "default", "features": "none" | "reply" | "reply_control" | "lookahead" | "reply_control_belief"
                | "reply_control_infer" | "lookahead_infer"},
     ...}   # training checkpoints add optimizer, RNG and trainer state

A bad file raises :class:`CheckpointError` naming the path and the problem.

At play time the agent encodes ``view`` with the
:class:`~allfives_env.encoders.DefaultEncoder`, appends the record's derived
features (:mod:`allfives_env.agents.ppo_features`; none in older files) and runs the network in numpy
(one decision at a time is faster without torch's per-call overhead); it
takes the most likely legal action, or samples one with ``sample=true``.
"""

import os

import numpy as np

from ...env.encoders import DefaultEncoder
from ...rules.actions import DRAW, NUM_ACTIONS
from ...rules.config import RulesConfig
from ..base import BaseAgent, register_agent
from .features import FEATURES, PolicyInput

FORMAT = "allfives-ppo"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be read, or does not fit what it is used for."""


def read_checkpoint(path, full=False) -> dict:
    """The checkpoint dict at ``path``, checked for format and version.

    ``full=False`` reads with ``weights_only=True`` (safe for shared files)."""
    import torch

    if not os.path.isfile(path):
        raise CheckpointError(f"checkpoint not found: {path!r}")
    try:
        ckpt = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch raises many types for truncated or foreign files
        raise CheckpointError(f"cannot read checkpoint {path!r}: it is corrupt or not a torch file "
                              f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})") from None
    if not isinstance(ckpt, dict) or ckpt.get("format") != FORMAT:
        raise CheckpointError(f"{path!r} is not an All Fives PPO checkpoint (no format={FORMAT!r} record)")
    if ckpt.get("version") != VERSION:
        raise CheckpointError(f"{path!r} has checkpoint version {ckpt.get('version')!r}; this code reads version {VERSION}")
    policy = ckpt.get("policy")
    if not isinstance(policy, dict) or not {"net", "state_dict", "num_players", "rules"} <= set(policy):
        raise CheckpointError(f"{path!r} has no complete 'policy' record (net, state_dict, num_players, rules)")
    return ckpt


def policy_record(net, rules: RulesConfig, features: str = "none") -> dict:
    """The ``"policy"`` record of a checkpoint for ``net`` trained under ``rules`` on ``features``."""
    return {"net": net.spec(), "state_dict": {k: v.detach().cpu().clone() for k, v in net.state_dict().items()},
            "num_players": rules.num_players, "rules": rules.to_dict(), "encoder": "default",
            "features": features}


def policy_features(policy: dict, path="<memory>") -> str:
    """The derived features a policy record was trained on ("none" for files older than features)."""
    features = policy.get("features", "none")
    if features not in FEATURES:
        raise CheckpointError(f"{path!r} needs features={features!r}, unknown here; known: {list(FEATURES)}")
    return features


def build_policy(policy: dict, path="<memory>"):
    """A :class:`~allfives_env.agents.ppo_net.PolicyNet` with the record's weights."""
    from .network import PolicyNet

    try:
        net = PolicyNet(**policy["net"])
        net.load_state_dict(policy["state_dict"])
    except (RuntimeError, TypeError, KeyError, ValueError) as exc:
        raise CheckpointError(f"{path!r}: the network does not match its stored shape ({exc})") from None
    net.eval()
    return net


def load_policy(path):
    """``(net, rules, features)`` from a checkpoint file."""
    ckpt = read_checkpoint(path)
    policy = ckpt["policy"]
    return build_policy(policy, path), RulesConfig.from_options(**policy["rules"]), policy_features(policy, path)


#: (path, mtime, size) -> numpy weights: a policy is read with torch once per process, and worker
#: processes forked by the arena reuse the parent's copy instead of calling torch after a fork (which can hang).
_WEIGHTS = {}


def _numpy_policy(path):
    st = os.stat(path)
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    if key not in _WEIGHTS:
        net, rules, features = load_policy(path)
        layers = [(m.weight.detach().numpy().T.copy(), m.bias.detach().numpy().copy())
                  for m in net.trunk if hasattr(m, "weight")]
        head = (net.policy_head.weight.detach().numpy().T.copy(), net.policy_head.bias.detach().numpy().copy())
        direct = None if net.direct is None else net.direct.weight.detach().numpy().T.copy()
        _WEIGHTS[key] = (rules, features, net.obs_dim, net.activation, layers, head, direct, _numpy_scorer(net))
    return _WEIGHTS[key]


def _numpy_scorer(net):
    """The action scorer's weights as numpy arrays (None without one); see :meth:`PPOAgent.logits`."""
    if not net.action_width:
        return None
    arrays = (net.action_context.weight.T, net.action_context.bias, net.action_tile, net.action_slot,
              net.action_features.weight.T, net.action_out.weight[0], net.action_out.bias[0])
    deep = None
    if net.action_deep is not None:
        deep = tuple(a.detach().numpy().copy() for a in (net.action_deep.weight.T, net.action_deep.bias,
                                                           net.action_deep_out.weight[0]))
    return tuple(a.detach().numpy().copy() for a in arrays) + (np.array(net.action_inputs, np.int64), deep)


class PPOAgent(BaseAgent):
    """ppo:PATH: a trained PPO policy (most likely legal action; ``sample=true`` samples; ``ensemble=B.pt+C.pt``; ``infer=greedy|off``).

    With ``ensemble``, the members' log-probabilities over the legal actions are averaged (see
    :meth:`legal_log_probs`); every member needs the same number of players. ``infer`` (default:
    the file's features) turns the greedy exclusions of ``reply_control`` or ``lookahead`` inputs on or off."""

    name = "ppo"

    def __init__(self, path, sample=False, ensemble=None, infer=None):
        super().__init__()
        self.path = path
        self.sample = bool(sample)
        if infer not in (None, "off", "greedy"):
            raise ValueError(f"infer={infer!r} is not allowed; allowed: 'greedy' or 'off' (default: the file's)")
        self._exclusions = np.zeros((1, 4), np.int64)
        if not os.path.isfile(path):
            raise CheckpointError(f"checkpoint not found: {path!r}")
        (self.rules, self.features, self.obs_dim, self.activation, self._layers, self._head,
         self._direct, self._scorer) = _numpy_policy(path)
        self.num_players = self.rules.num_players
        if infer is not None:  # a set and its _infer variant take the same inputs
            self.features = _with_inference(self.features, infer == "greedy", path)
        self.infer = "greedy" if self.features.endswith("_infer") else "off"
        self._infer_option = infer  # ensemble members get the same option (None: each its own file's)
        self._encoders = {}
        self._inputs = {}
        self._mask = np.zeros((1, NUM_ACTIONS), np.int8)
        self.members = [self] + [self._ensemble_member(p) for p in _ensemble_paths(ensemble)]

    def _ensemble_member(self, path):
        member = PPOAgent(path, infer=self._infer_option)
        if member.num_players != self.num_players:
            raise CheckpointError(f"ensemble member {path!r} was trained for {member.num_players} players; "
                                  f"{self.path!r} for {self.num_players}: every member needs the same number")
        return member

    def reset(self, seat, config, rng):
        if config.num_players != self.num_players:
            raise ValueError(f"{self.path!r} was trained for {self.num_players} players; "
                             f"this game has {config.num_players}")
        super().reset(seat, config, rng)
        if config not in self._encoders:
            encoder = DefaultEncoder(config)
            policy_input = PolicyInput(self.features, config.num_players, config.divisor)
            if policy_input.size != self.obs_dim:
                raise ValueError(f"{self.path!r} expects inputs of size {self.obs_dim}; this game's encoder "
                                 f"with features={self.features!r} gives {policy_input.size}")
            self._encoders[config] = encoder
            self._inputs[config] = policy_input
        for member in self.members[1:]:
            member.reset(seat, config, rng)

    def _act_fn(self, x):
        return np.maximum(x, 0.0) if self.activation == "relu" else np.tanh(x)

    def _trunk(self, x: np.ndarray) -> np.ndarray:
        for w, b in self._layers:
            x = self._act_fn(x @ w + b)
        return x

    def _placement_scores(self, x: np.ndarray, h: np.ndarray, rows: np.ndarray, placements: np.ndarray):
        """The action scorer's score of ``placements[i]`` in input row ``rows[i]`` (``x``, ``h``: inputs
        and trunk states, one row per position), as PolicyNet._action_scores computes it."""
        context_w, context_b, tile, slot, features_w, out_w, out_b, offsets, deep = self._scorer
        hidden = ((h @ context_w + context_b)[rows] + tile[placements // 4] + slot[placements % 4]
                  + x[rows[:, None], offsets[None, :] + placements[:, None]] @ features_w)
        hidden = self._act_fn(hidden)
        scores = hidden @ out_w + out_b
        if deep is not None:
            deep_w, deep_b, deep_out = deep
            scores = scores + self._act_fn(hidden @ deep_w + deep_b) @ deep_out
        return scores

    def logits(self, obs: np.ndarray, legal=None) -> np.ndarray:
        """The network's logits for one input vector (numpy, as PolicyNet computes them). With an action
        scorer, only the placements in ``legal`` (all when None) get their score."""
        h = self._trunk(obs)
        out = h @ self._head[0] + self._head[1]
        if self._direct is not None:
            out = out + obs @ self._direct
        if self._scorer is not None:
            placements = np.arange(DRAW) if legal is None else np.asarray(legal)
            placements = placements[placements < DRAW]
            out = out.copy()
            out[placements] += self._placement_scores(obs[None, :], h[None, :], np.zeros(len(placements), np.int64),
                                                      placements)
        return out

    def best_placements(self, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
        """The most likely placement of each row of a batch: ``x`` (R, obs_dim) network inputs, ``mask``
        (R, 114) their legal actions, each row with at least one legal placement (draw and pass are
        not considered). Ties go to the lowest action id, as in :meth:`act`. Used by the search's
        policy rollouts (:mod:`allfives_env.vector.policy_search`)."""
        rows, placements = np.nonzero(mask[:, :DRAW])
        h = self._trunk(x)
        logits = (h @ self._head[0] + self._head[1])[rows, placements]
        if self._direct is not None:
            logits = logits + (x @ self._direct)[rows, placements]
        if self._scorer is not None:
            logits = logits + self._placement_scores(x, h, rows, placements)
        order = np.lexsort((-logits, rows))  # by row, then best first (stable: ties keep the lower id)
        first = np.ones(len(order), bool)
        first[1:] = rows[order][1:] != rows[order][:-1]
        return placements[order][first]

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
        (:func:`allfives_env.vector.inference.greedy_exclusions`; the own side gets none); else None."""
        if self.infer != "greedy":
            return None
        from ..inference import view_exclusions

        forbid = view_exclusions(view, np.zeros(4, np.int64))
        n = view.num_players
        for rel in range(4):
            self._exclusions[0, rel] = forbid[(view.seat + rel) % n] if rel < n else 0
        return self._exclusions

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:
            return legal_actions[0]
        legal = np.asarray(legal_actions)
        if len(self.members) == 1:  # the hot path: raw logits rank and sample as their log-softmax does
            chosen = self.logits(self.input_vector(view, legal), legal)[legal]
        else:
            chosen = self.legal_log_probs(view, legal)
        if not self.sample:
            return int(legal[int(np.argmax(chosen))])
        p = np.exp(chosen - chosen.max())
        p /= p.sum()
        return int(legal[int(self.rng.choice(len(legal), p=p))])

    def legal_log_probs(self, view, legal: np.ndarray) -> np.ndarray:
        """The policy's log-probabilities of the ``legal`` actions; with an ensemble, the mean of its members'
        (a product of experts, not normalised: an action any member finds bad is held back)."""
        total = np.zeros(len(legal))
        for member in self.members:
            chosen = member.logits(member.input_vector(view, legal), legal)[legal]
            chosen = chosen - chosen.max()
            total += chosen - np.log(np.exp(chosen).sum())
        return total / len(self.members)

    def action_values(self, view, legal_actions) -> np.ndarray:
        """:meth:`legal_log_probs` as a teacher's action values (``training.distill collect --teacher
        ppo:...``): ``train --temperature 1`` then imitates the policy's (or ensemble's) distribution."""
        return self.legal_log_probs(view, np.asarray(legal_actions))


def _with_inference(features: str, infer: bool, path) -> str:
    """The feature set ``features`` with (``infer``) or without the greedy exclusions."""
    base = features[:-len("_infer")] if features.endswith("_infer") else features
    if not infer:
        return base
    if base + "_infer" not in FEATURES:
        raise ValueError(f"{path!r} uses features={features!r}: infer=greedy needs reply_control or lookahead "
                         "features")
    return base + "_infer"


def _ensemble_paths(ensemble) -> list:
    """The extra member paths of an ``ensemble=B.pt+C.pt`` option (none for None)."""
    if ensemble is None:
        return []
    paths = [p.strip() for p in str(ensemble).split("+")]
    if not all(paths):
        raise ValueError(f"ensemble={ensemble!r}: give checkpoint paths joined by '+', e.g. ensemble=b.pt+c.pt")
    return paths


def _factory(path, **options):
    return PPOAgent(path, **options)


register_agent("ppo", _factory, takes_path=True, help=PPOAgent.__doc__.splitlines()[0])

__all__ = ["PPOAgent", "CheckpointError", "read_checkpoint", "policy_record", "policy_features", "build_policy",
           "load_policy",
           "FORMAT", "VERSION", "NUM_ACTIONS"]
