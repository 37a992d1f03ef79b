"""Learner decisions per second into Stable-Baselines3, vector env next to the one-game wrapper, in one run.

Two measurements for each env, both against greedy opponents, 2 players by default:

* **env side**: what MaskablePPO's rollout loop asks of the env per learner
  decision, without the network: ``get_action_masks(env)``, a legal action per
  env (the lowest legal id, a fixed cost), ``env.step(actions)``. Vector:
  :class:`~allfives_env.integrations.sb3_vec.AllFivesVecEnv` over B games (the
  opponents in compiled kernels). Single: SB3's ``DummyVecEnv`` over
  ``--single-envs`` copies of
  :class:`~allfives_env.integrations.gym_single.SingleAgentAllFives` (the
  opponents as arena agents, the AEC env on the compiled core).
* **end to end** (``--learn-seconds`` > 0): ``MaskablePPO.learn`` on each,
  rollouts and updates, the same hyperparameters: learner decisions per
  second of training.

Reports the env side's medians over ``--repeats`` interleaved runs of ``--seconds`` each, the end to
end rates of one run of ``--learn-seconds`` each, and the ratios.

    python benchmarks/sb3_vec_speed.py [--players 2] [--num-envs 256] [--seconds 2] [--repeats 5]
                                       [--learn-seconds 20]
"""

import argparse
import statistics
import time

import numpy as np

from allfives_env.integrations.run_args import TIMED_RUNS_AT_LEAST, TIMED_RUNS_AT_MOST, ScriptHelp, check_run_args
from allfives_env.vector.batched import MAX_NUM_ENVS


def vector_env(args):
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    return AllFivesVecEnv(args.num_envs, num_players=args.players, opponents=args.opponent, reward="zero_sum")


def single_env(args):
    from stable_baselines3.common.vec_env import DummyVecEnv

    from allfives_env.integrations import SingleAgentAllFives

    return DummyVecEnv([lambda: SingleAgentAllFives(num_players=args.players, opponents=args.opponent, obs="flat",
                                                    reward="zero_sum") for _ in range(args.single_envs)])


def env_side_rate(env, seconds):
    """Learner decisions per second of masks + step, for about ``seconds``."""
    from sb3_contrib.common.maskable.utils import get_action_masks

    env.reset()
    decisions, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        for _ in range(4):
            masks = get_action_masks(env)
            env.step(np.argmax(masks, axis=1))
        decisions += 4 * env.num_envs
    return decisions / (time.perf_counter() - start)


def learn_rate(env, seconds, n_steps):
    """Learner decisions per second of ``MaskablePPO.learn`` (rollouts and updates) for about ``seconds``."""
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger

    class StopAfter(BaseCallback):
        def _on_step(self):
            return time.perf_counter() - start < seconds

    torch.set_num_threads(1)
    model = MaskablePPO("MlpPolicy", env, n_steps=n_steps, batch_size=2048, n_epochs=3, seed=0, device="cpu",
                        policy_kwargs={"net_arch": [128, 128]})
    model.set_logger(Logger(folder=None, output_formats=[]))  # SB3's default makes an empty /tmp/SB3-<time> per run
    start = time.perf_counter()
    model.learn(10**9, callback=StopAfter())
    return model.num_timesteps / (time.perf_counter() - start)


def interleaved_medians(envs, measure, repeats) -> list:
    """The median rate of each env over ``repeats`` rounds, each round one run of every env (a slower
    spell of the machine hits them alike)."""
    for env in envs:
        measure(env, 0.2)  # warm-up: numba compile or cache load, first resets
    rates = [[] for _ in envs]
    for _ in range(repeats):
        for env, runs in zip(envs, rates):
            runs.append(measure(env, None))
    return [statistics.median(runs) for runs in rates]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=ScriptHelp)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--opponent", default="greedy", help="every other seat: an agent spec with a batched twin "
                        "(random, greedy, heuristic, ppo:PATH)")
    parser.add_argument("--num-envs", type=int, default=256, help="games in the vector env")
    parser.add_argument("--single-envs", type=int, default=8, help="wrapper copies in the DummyVecEnv")
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of one timed env-side run (at least 0.01)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per entry (the median is shown)")
    parser.add_argument("--learn-seconds", type=float, default=20.0, help="seconds of the end-to-end MaskablePPO run (0: skip)")
    args = parser.parse_args(argv)
    try:
        check_run_args(args, positive=["num_envs", "single_envs", "seconds", "repeats"],
                       at_least_zero=["learn_seconds"], specs=["opponent"], at_least=TIMED_RUNS_AT_LEAST,
                       at_most={**TIMED_RUNS_AT_MOST, "num_envs": MAX_NUM_ENVS, "single_envs": 1024,
                                "learn_seconds": 86400})
        vector_env(args).close()  # an opponent without a batched twin is refused here, in one line
    except ValueError as exc:
        parser.error(str(exc))

    def env_side(env, seconds):
        return env_side_rate(env, args.seconds if seconds is None else seconds)

    print(f"{args.players} players against {args.opponent}; env side: medians of {args.repeats} runs of "
          f"{args.seconds} s; learn: one run of {args.learn_seconds} s each")
    print(f"{'measure':<12} {'env':<34} {'decisions/s':>12} {'ratio':>7}")
    vector, single = interleaved_medians([vector_env(args), single_env(args)], env_side, args.repeats)
    print(f"{'env side':<12} {'vector VecEnv B=' + str(args.num_envs):<34} {vector:>12,.0f} {vector / single:>6.1f}x")
    print(f"{'env side':<12} {'DummyVecEnv x' + str(args.single_envs) + ' single wrapper':<34} {single:>12,.0f} "
          f"{1.0:>6.1f}x")
    if args.learn_seconds > 0:
        vector = learn_rate(vector_env(args), args.learn_seconds, n_steps=64)
        single = learn_rate(single_env(args), args.learn_seconds, n_steps=2048)
        print(f"{'learn':<12} {'vector VecEnv B=' + str(args.num_envs):<34} {vector:>12,.0f} "
              f"{vector / single:>6.1f}x")
        print(f"{'learn':<12} {'DummyVecEnv x' + str(args.single_envs) + ' single wrapper':<34} {single:>12,.0f} "
              f"{1.0:>6.1f}x")


if __name__ == "__main__":
    main()
