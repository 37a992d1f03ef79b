"""Cost of the policy's derived inputs (agents/ppo/features.py) per position, next to a batched env step.

    python benchmarks/feature_speed.py [--envs 256] [--steps 60] [--repeats 7] [--players 2 3 4]

Random play in the batched env collects the positions (every third step of ``--envs`` games for
``--steps`` steps, those with a placement to make). Each feature set builds its input for all of
them at once (``PolicyInput``, as the trainer and the champion's look-ahead call it), interleaved
with the peer, a step of the same batched env (observations and masks of ``--envs`` games); both
in wall time per position, medians of ``--repeats``. Compilation is warmed up first.
"""

import argparse
import statistics
import time

import numpy as np

from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.integrations.run_args import ScriptHelp, check_run_args
from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions
from allfives_env.vector.batched import MAX_NUM_ENVS

#: The feature sets the shipped configs use (``lookahead_infer`` costs what ``lookahead`` does).
FEATURE_SETS = ("reply_control", "lookahead")


def collect_positions(num_players, envs, steps, seed=0):
    """(obs, mask) of the decisions with a placement, every third step of random play."""
    venv = VectorAllFives(num_envs=envs, num_players=num_players)
    out = venv.reset(seed=seed)
    pick = make_rng_state(seed + 1, envs)
    observations, masks = [], []
    for step in range(steps):
        if step % 3 == 0:
            observations.append(out.obs.copy())
            masks.append(out.mask.copy())
        out = venv.step(random_legal_actions(out.mask, pick))
    obs, mask = np.concatenate(observations), np.concatenate(masks)
    placing = mask[:, :112].sum(axis=1) > 0
    return obs[placing], mask[placing]


def env_step_timer(num_players, envs, seed=0):
    """A callable timing one step of ``envs`` games (seconds per game-step)."""
    venv = VectorAllFives(num_envs=envs, num_players=num_players)
    state = {"out": venv.reset(seed=seed)}
    pick = make_rng_state(seed + 2, envs)

    def step():
        actions = random_legal_actions(state["out"].mask, pick)
        start = time.perf_counter()
        state["out"] = venv.step(actions)
        return (time.perf_counter() - start) / envs
    return step


def feature_timer(features, num_players, obs, mask):
    """A callable timing the input of every position (seconds per position)."""
    build = PolicyInput(features, num_players, 5)
    out = np.empty((obs.shape[0], build.size), np.float32)

    def run():
        start = time.perf_counter()
        build(obs, mask, out=out)
        return (time.perf_counter() - start) / obs.shape[0]
    return run


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    parser.add_argument("--envs", type=int, default=256, help="games stepped together to collect positions")
    parser.add_argument("--steps", type=int, default=60, help="steps of those games (positions: envs x steps)")
    parser.add_argument("--repeats", type=int, default=7, help="timed runs per entry (the median is shown)")
    parser.add_argument("--players", type=int, nargs="+", default=[2, 3, 4], choices=[2, 3, 4])
    args = parser.parse_args(argv)
    try:
        check_run_args(args, positive=["envs", "steps", "repeats"],
                       at_most={"envs": MAX_NUM_ENVS, "steps": 100_000, "repeats": 1000})
    except ValueError as exc:
        parser.error(str(exc))
    print(f"{'players':>7}  {'input':<14} {'us/position':>11}  {'x env step':>10}")
    for n in args.players:
        obs, mask = collect_positions(n, args.envs, args.steps)
        timers = {"env step": env_step_timer(n, args.envs)}
        timers.update({name: feature_timer(name, n, obs, mask) for name in FEATURE_SETS})
        times = {name: [] for name in timers}
        for timer in timers.values():  # warm-up: compilation
            timer()
        for _ in range(args.repeats):  # interleaved, so a busy spell hits every row alike
            for name, timer in timers.items():
                times[name].append(timer())
        step = statistics.median(times["env step"])
        for name, samples in times.items():
            median = statistics.median(samples)
            print(f"{n:>7}  {name:<14} {1e6 * median:>11.2f}  {median / step:>9.1f}x")


if __name__ == "__main__":
    main()
