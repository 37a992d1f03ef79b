"""Export the policy of a training checkpoint as a small ``ppo:PATH`` file.

    python -m training.export runs/ppo_3p_rc/latest.pt checkpoints/ppo_3p.pt

For a run stopped early (Ctrl-C or SIGTERM write ``latest.pt`` but no
``policy.pt``), or to ship ``best.pt``. The output holds the weights, the
network shape, the rules and the derived features; no optimizer or trainer
state (what ``training/`` writes as ``policy.pt`` at a run's end).

With ``--averaged``, it holds the running mean of the policy's weights that a
run with ``average_from > 0`` keeps in its training checkpoints (what the run
writes as ``averaged_policy.pt`` at its end).
"""

import argparse
import sys

from allfives_env.agents.ppo.agent import CheckpointError, build_policy, policy_features, read_checkpoint
from allfives_env.rules.config import RulesConfig

from .checkpoint import export_policy, load_checkpoint


def export(source, target, averaged=False) -> dict:
    """Write the policy of ``source`` (or, with ``averaged``, its weight average) to ``target``;
    returns what the export records."""
    ckpt = load_checkpoint(source) if averaged else read_checkpoint(source)
    policy = ckpt["policy"]
    net = build_policy(policy, source)
    rules = RulesConfig.from_options(**policy["rules"])
    extra = {"exported_from": source, "global_step": ckpt.get("global_step"), "update": ckpt.get("update")}
    if averaged:
        net, extra["averaged_snapshots"] = _averaged_net(net, ckpt["trainer"], source)
    export_policy(target, net, rules, extra=extra, features=policy_features(policy, source))
    return extra


def _averaged_net(net, trainer_state, source):
    """The weight average held in a training checkpoint's trainer state, as a network like ``net``."""
    from torch.optim.swa_utils import AveragedModel

    state = trainer_state.get("average")
    if state is None or int(state["n_averaged"]) == 0:
        raise CheckpointError(f"{source!r} holds no weight average: train with average_from > 0, and export "
                              "after that update")
    average = AveragedModel(net)
    average.load_state_dict(state)
    return average.module, int(state["n_averaged"])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.export", description=__doc__.splitlines()[0])
    p.add_argument("source", help="a checkpoint: RUN/latest.pt, RUN/best.pt or a policy file")
    p.add_argument("target", help="where to write the policy file")
    p.add_argument("--averaged", action="store_true",
                   help="export the running mean of the weights (a training checkpoint of a run with average_from > 0)")
    args = p.parse_args(argv)
    try:
        extra = export(args.source, args.target, args.averaged)
    except CheckpointError as exc:
        sys.stderr.write(f"training.export: error: {exc}\n")
        return 2
    mean = f", the mean of {extra['averaged_snapshots']} snapshots" if args.averaged else ""
    print(f"wrote {args.target} (update {extra['update']}, {extra['global_step']} decisions{mean})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
