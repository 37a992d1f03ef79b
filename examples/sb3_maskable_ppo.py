"""Train sb3-contrib's MaskablePPO on the single-agent wrapper, then score it in the arena.

    .venv/bin/python examples/sb3_maskable_ppo.py --timesteps 50000 --opponent greedy --eval-games 200

The learner plays a random seat each episode against ``--opponent`` (any
arena spec); rewards are ``zero_sum`` points (its side's gain minus the
opponents'), scaled by ``--reward-scale``. Evaluation is a duplicate-deal
arena match (``allfives_env.arena.run_match``) of the deterministic policy
against each ``--eval-against`` spec, with 95% Wilson intervals.

Needs the ``sb3`` extra (``pip install -e ".[sb3]"``; ``scripts/setup.sh``
installs it).
"""

import argparse
import json
import time

import gymnasium

from allfives_env.arena import format_table, run_match
from allfives_env.integrations import PolicyAgent, SingleAgentAllFives


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--players", type=int, default=2, help="2, 3 or 4 (4: the learner plays one seat)")
    p.add_argument("--opponent", default="greedy", help="arena spec for every other seat")
    p.add_argument("--timesteps", type=int, default=20000, help="learner decisions to train for")
    p.add_argument("--n-steps", type=int, default=1024, help="rollout length per PPO update")
    p.add_argument("--batch-size", type=int, default=128)
    p.add_argument("--n-epochs", type=int, default=10, help="passes over each rollout")
    p.add_argument("--reward-scale", type=float, default=1 / 35, help="multiplies every reward (35 = most points in one play)")
    p.add_argument("--obs", choices=["flat", "dict"], default="flat", help="flat: MlpPolicy, dict: MultiInputPolicy")
    p.add_argument("--eval-against", nargs="+", default=["greedy", "random"], help="arena specs to play after training")
    p.add_argument("--eval-games", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", default=None, help="write the trained model here (MaskablePPO.save)")
    p.add_argument("--json", default=None, help="write the numbers of this run here")
    return p.parse_args(argv)


def make_env(args):
    env = SingleAgentAllFives(num_players=args.players, learner="random", opponents=args.opponent,
                              obs=args.obs, reward="zero_sum")
    scale = args.reward_scale
    return gymnasium.wrappers.TransformReward(env, lambda r: r * scale)


def train(args):
    from sb3_contrib import MaskablePPO

    env = make_env(args)
    model = MaskablePPO("MlpPolicy" if args.obs == "flat" else "MultiInputPolicy", env, n_steps=args.n_steps,
                        batch_size=args.batch_size, n_epochs=args.n_epochs, seed=args.seed, verbose=0, device="cpu")
    t0 = time.perf_counter()
    model.learn(total_timesteps=args.timesteps)
    return model, time.perf_counter() - t0


def evaluate(model, args):
    """One duplicate-deal match per opponent spec; returns the result dicts."""
    agent = PolicyAgent(lambda obs, mask: model.predict(obs, action_masks=mask, deterministic=True)[0],
                        obs=args.obs, name="maskable_ppo")
    config = model.get_env().envs[0].unwrapped.config
    results = []
    for spec in args.eval_against:
        specs = [agent, spec] if config.num_sides == 2 else [agent, spec, spec]
        match = run_match(config, specs, games=args.eval_games, seed=args.seed + 1)
        print(format_table(match))
        results.append(match.to_dict())
    return results


def main(argv=None):
    args = parse_args(argv)
    model, seconds = train(args)
    print(f"trained MaskablePPO for {model.num_timesteps} steps in {seconds:.1f} s "
          f"({model.num_timesteps / seconds:.0f} steps/s)")
    if args.save:
        model.save(args.save)
    results = evaluate(model, args)
    summary = {"timesteps": model.num_timesteps, "train_seconds": seconds, "eval": results}
    if args.json:
        with open(args.json, "w") as f:
            json.dump(summary, f, indent=1)
    return summary


if __name__ == "__main__":
    main()
