"""``init_from``: start a network from a policy file, function-preserving, widening where asked."""

import torch

from allfives_env.agents.ppo.agent import CheckpointError, build_policy, policy_features, read_checkpoint
from allfives_env.agents.ppo.features import extends
from allfives_env.agents.registry import resolve_policy_path


def warm_start(net, path, rules, features):
    """Load the policy file ``path`` into ``net`` (for ``init_from``), function-preserving.

    ``net`` may be *wider* than the file's network: the same number of trunk
    layers, each at least as wide, an action scorer at least as wide and as
    deep (or a new one; a second scorer layer added to a one-layer file
    starts with its output at zero), and it may read more inputs (new
    derived features). The old weights fill each matrix's top-left block;
    every weight *out of* a new unit or new input is zero, so the network starts out
    computing exactly the file's policy and value; weights *into* new units
    keep their fresh random start, so the new units learn as soon as the
    zero weights move (as in Net2Net's widening). (A widened scorer's tile
    and slot embeddings hold one column per unit: the new units' columns
    start at zero, like every column beyond the file's block; their context
    and feature weights in are random.)"""
    try:
        policy = read_checkpoint(resolve_policy_path(path))["policy"]  # a shipped file from any directory
    except CheckpointError as exc:  # missing, a folder, damaged: named as the config key the user set
        raise CheckpointError(f"init_from: {exc}") from None
    if policy["num_players"] != rules.num_players:
        raise CheckpointError(f"init_from {path!r} is a {policy['num_players']}-player policy; "
                              f"this run has {rules.num_players} players")
    source = build_policy(policy, path)
    old_widths, new_widths = list(source.hidden_sizes), list(net.hidden_sizes)
    if (len(old_widths) != len(new_widths) or any(n < o for o, n in zip(old_widths, new_widths))
            or source.activation != net.activation or source.skip != net.skip):
        raise CheckpointError(f"init_from {path!r} has hidden_sizes {old_widths} ({source.activation}); this run has "
                              f"{new_widths} ({net.activation}): it needs as many layers, each at least as wide, "
                              f"and the same activation and skip path")
    for size, at_least in (("width", "wide"), ("depth", "deep")):
        old, new = getattr(source, f"action_{size}"), getattr(net, f"action_{size}")
        if old > new:
            raise CheckpointError(f"init_from {path!r} has an action scorer of {size} {old}; this run has "
                                  f"action_{size}={new}: it needs a scorer at least as {at_least}")
    old_features = policy_features(policy, path)
    if not extends(features, old_features) or source.obs_dim > net.obs_dim:
        raise CheckpointError(f"init_from {path!r} was trained on features={old_features!r}; this run uses "
                              f"features={features!r}")
    state = net.state_dict()
    with torch.no_grad():
        for name, value in source.state_dict().items():
            target = state[name]
            rows = value.shape[0]
            if value.dim() == 2:  # old units' rows: old weights, zero from new inputs / new units
                target[:rows].zero_()
                target[:rows, :value.shape[1]].copy_(value)
            else:
                target[:rows].copy_(value)
    net.load_state_dict(state)
