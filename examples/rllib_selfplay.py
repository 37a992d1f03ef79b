"""Self-play PPO with Ray RLlib on All Fives, then an arena evaluation.

Every seat is mapped to one shared, action-masked PPO module ("main"), so the
policy plays against copies of itself; after training, the module plays
duplicate-deal arena matches against ``--eval-against`` (greedy and random by
default).

On this machine (a local Ray cluster started by the script):

    .venv/bin/python examples/rllib_selfplay.py --iterations 20 --num-env-runners 2

On a multi-node Ray cluster: install this package (``pip install -e
".[rllib]"``) on every node, start the head with ``ray start --head`` and each
worker with ``ray start --address=HEAD_IP:6379``, then run the same script on
the head with ``--address auto`` and as many env runners as the cluster has
CPUs to spare, e.g. ``--address auto --num-env-runners 32``.

Needs the ``rllib`` extra (``scripts/setup.sh`` installs it).
"""

import argparse
import json
import time

from allfives_env.arena.schedule import MAX_GAMES
from allfives_env.integrations.run_args import ScriptHelp, check_run_args


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    p.add_argument("--reward", default="zero_sum", choices=["points", "zero_sum", "win"])
    p.add_argument("--reward-scale", type=float, default=None,
                   help="multiplies every reward; default 1/35 for points rewards (35 = most points in one play), 1 for win")
    p.add_argument("--iterations", type=int, default=5, help="PPO training iterations (at most, with --minutes)")
    p.add_argument("--minutes", type=float, default=0.0, help="stop after this much training time (0: none)")
    p.add_argument("--curve-every", type=float, default=0.0,
                   help="minutes between learning-curve points (200 games against greedy, seed 12345; 0: none)")
    p.add_argument("--batch-size", type=int, default=4000, help="env steps per iteration (train_batch_size_per_learner)")
    p.add_argument("--minibatch-size", type=int, default=500)
    p.add_argument("--epochs", type=int, default=5, help="passes over each batch")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--hiddens", type=int, nargs="+", default=[256, 256])
    p.add_argument("--num-env-runners", type=int, default=0, help="0: sample in the driver process")
    p.add_argument("--address", default=None, help="an existing Ray cluster ('auto' on a `ray start` node); "
                                                      "default: start a local one")
    p.add_argument("--num-cpus", type=int, default=None, help="CPUs for the local cluster (default: all)")
    p.add_argument("--eval-against", nargs="+", default=["greedy", "random"], help="arena specs")
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--eval-seed", type=int, default=2026, help="the evaluation's deals (none used in training)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--checkpoint", default=None, help="save the trained algorithm here")
    p.add_argument("--json", default=None, help="write the numbers of this run here")
    args = p.parse_args(argv)
    try:
        check_run_args(args, positive=["iterations", "batch_size", "minibatch_size", "epochs", "eval_games",
                                       "num_cpus", "lr", "hiddens", "reward_scale"],
                       at_least_zero=["minutes", "curve_every", "num_env_runners"], seeds=["seed", "eval_seed"],
                       specs=["eval_against"], players=args.players, at_most={"eval_games": MAX_GAMES},
                       outputs=["json"], new_folders=["checkpoint"])
        if args.minibatch_size > args.batch_size:  # RLlib's own refusal is a multi-line config error
            raise ValueError(f"--minibatch-size {args.minibatch_size} is not allowed; allowed: at most --batch-size "
                             f"({args.batch_size})")
    except ValueError as exc:
        p.error(str(exc))
    return args


def build_config(args):
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec

    from allfives_env.integrations.rllib import AllFivesMultiAgentEnv, masked_ppo_spec

    scale = args.reward_scale if args.reward_scale is not None else (1.0 if args.reward == "win" else 1 / 35)
    return (
        PPOConfig()
        .environment(AllFivesMultiAgentEnv, env_config={"num_players": args.players, "reward": args.reward,
                                                        "reward_scale": scale})
        .multi_agent(policies={"main"}, policy_mapping_fn=lambda agent_id, episode, **kwargs: "main")
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={"main": masked_ppo_spec(args.hiddens)}))
        .env_runners(num_env_runners=args.num_env_runners, num_envs_per_env_runner=1)
        .learners(num_learners=0)
        .training(train_batch_size_per_learner=args.batch_size, minibatch_size=args.minibatch_size,
                  num_epochs=args.epochs, lr=args.lr)
        .debugging(seed=args.seed)
    )


def train(algo, iterations, minutes=0.0, curve_every=0.0, players=2):
    """Run ``iterations`` of PPO (or until ``minutes`` of training); returns one summary dict per iteration,
    with a learning-curve point against greedy every ``curve_every`` minutes (``win_rate`` in that row)."""
    history = []
    trained, next_point = 0.0, 0.0
    for i in range(iterations):
        if minutes and trained >= 60 * minutes:
            break
        t0 = time.perf_counter()
        result = algo.train()
        trained += time.perf_counter() - t0
        runners = result.get("env_runners", {})
        learner = result.get("learners", {}).get("main", {})
        row = {
            "iteration": i + 1,
            "seconds": time.perf_counter() - t0,
            "env_steps": runners.get("num_env_steps_sampled_lifetime"),
            "episodes": runners.get("num_episodes_lifetime"),
            "episode_len_mean": runners.get("episode_len_mean"),
            "policy_loss": learner.get("policy_loss"),
            "vf_loss": learner.get("vf_loss"),
            "entropy": learner.get("entropy"),
        }
        row["train_seconds"] = trained
        if curve_every and trained >= next_point:
            row["win_rate"] = curve_point(algo.get_module("main"), players)
            next_point += 60 * curve_every
        history.append({k: (float(v) if hasattr(v, "__float__") else v) for k, v in row.items()})
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in history[-1].items() if v is not None))  # None: no episode ended yet
    return history


def curve_point(module, players) -> float:
    from allfives_env.arena import run_match
    from allfives_env.integrations.rllib import RLlibAgent
    from allfives_env.rules import RulesConfig

    config = RulesConfig(num_players=players)
    match = run_match(config, [RLlibAgent(module, name="rllib_ppo")] + ["greedy"] * (config.num_sides - 1), 200,
                      seed=12345)
    return match.to_dict()["agents"][0]["win_rate"]


def env_runner_nodes(algo) -> list:
    """The Ray node id of each remote env runner (where sampling ran)."""
    import ray

    if algo.env_runner_group is None or algo.env_runner_group.num_remote_env_runners() == 0:
        return []
    return algo.env_runner_group.foreach_env_runner(lambda runner: ray.get_runtime_context().get_node_id(),
                                                    local_env_runner=False)


def evaluate(module, args):
    """Duplicate-deal arena matches of the greedy-over-logits policy against each spec."""
    from allfives_env.arena import format_table, run_match
    from allfives_env.integrations.rllib import RLlibAgent
    from allfives_env.rules import RulesConfig

    config = RulesConfig(num_players=args.players)
    agent = RLlibAgent(module, name="rllib_ppo")
    results = []
    for spec in args.eval_against:
        specs = [agent] + [spec] * (config.num_sides - 1)
        match = run_match(config, specs, games=args.eval_games, seed=args.eval_seed)
        print(format_table(match))
        results.append(match.to_dict())
    return results


def main(argv=None):
    args = parse_args(argv)
    import ray

    started = not ray.is_initialized()
    if started:
        if args.address:
            ray.init(address=args.address)
        else:
            ray.init(num_cpus=args.num_cpus, include_dashboard=False, configure_logging=False)
    try:
        algo = build_config(args).build_algo()
        try:
            history = train(algo, args.iterations, args.minutes, args.curve_every, args.players)
            nodes = env_runner_nodes(algo)
            if args.checkpoint:
                algo.save_to_path(args.checkpoint)
            results = evaluate(algo.get_module("main"), args)
        finally:
            algo.stop()
    finally:
        if started:
            ray.shutdown()
    summary = {"train": history, "eval": results, "env_runner_nodes": nodes}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
