"""Export the policy of a training checkpoint as a small ``ppo:PATH`` file.

    python -m training.export runs/ppo_3p_rc/latest.pt checkpoints/ppo_3p.pt

For a run stopped early (Ctrl-C or SIGTERM write ``latest.pt`` but no
``policy.pt``), or to ship ``best.pt``. The output holds the weights, the
network shape, the rules and the derived features; no optimizer or trainer
state (what ``training/`` writes as ``policy.pt`` at a run's end).
"""

import sys

from allfives_env.agents.ppo.agent import CheckpointError, build_policy, policy_features, read_checkpoint
from allfives_env.cli import OneLineParser
from allfives_env.rules.config import RulesConfig

from .checkpoint import check_policy_output, export_policy


def export(source, target) -> dict:
    """Write the policy of ``source`` to ``target``; returns what the export records."""
    ckpt = read_checkpoint(source)
    policy = ckpt["policy"]
    net = build_policy(policy, source)
    rules = RulesConfig.from_options(**policy["rules"])
    extra = {"exported_from": source, "global_step": ckpt.get("global_step"), "update": ckpt.get("update")}
    export_policy(target, net, rules, extra=extra, features=policy_features(policy, source))
    return extra


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m training.export", description=__doc__.splitlines()[0])
    p.add_argument("source", help="a checkpoint: RUN/latest.pt, RUN/best.pt or a policy file")
    p.add_argument("target", help="where to write the policy file")
    args = p.parse_args(argv)
    try:
        check_policy_output(args.target, [args.source])
        extra = export(args.source, args.target)
    except (CheckpointError, ValueError) as exc:
        sys.stderr.write(f"training.export: error: {exc}\n")
        return 2
    made = ("from a policy file" if extra["update"] is None else
            f"update {extra['update']}, {extra['global_step']} decisions")
    print(f"wrote {args.target} ({made})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
