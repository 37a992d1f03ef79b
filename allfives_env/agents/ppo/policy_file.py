"""The policy file: what ``training/`` writes and ``ppo:PATH`` reads.

Record (``torch.save`` of a dict, read back with ``weights_only=True``)::

    {"format": "allfives-ppo", "version": 1,
     "policy": {"net": {"obs_dim", "hidden_sizes", "activation", "skip"[, "action_width", "action_inputs"[, "action_depth"]]},
                "state_dict": {...}, "num_players": n, "rules": RulesConfig.to_dict(),
                "encoder": "default", "features": one of :data:`~.features.FEATURES`},
     ...}   # training checkpoints add optimizer, RNG and trainer state

A bad file raises :class:`CheckpointError` naming the path and the problem.
Loading needs torch but none of the training code.
"""

import os

from ...rules.config import RulesConfig
from .features import FEATURES

FORMAT = "allfives-ppo"
VERSION = 1


class CheckpointError(ValueError):
    """A checkpoint that cannot be read, or does not fit what it is used for."""


def read_checkpoint(path) -> dict:
    """The checkpoint dict at ``path``, checked for format and version (read with
    ``weights_only=True``: a file from someone else cannot run code)."""
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
    """A :class:`~allfives_env.agents.ppo.network.PolicyNet` with the record's weights."""
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
