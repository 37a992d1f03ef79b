"""Decisions per second of random legal play through the public AEC API.

CPU time of this process (time.process_time), so other load on the machine
skews the figures less. Measures allfives_env next to PettingZoo's connect_four_v3 in the same run,
plus the bare engine (legal actions + apply). Reports medians of repeats; every entry first plays
once untimed (the first game loads the compiled kernels).

    python benchmarks/aec_speed.py [--seconds 3] [--repeats 5]
"""

import argparse
import random
import statistics
import time

import numpy as np

from allfives_env.integrations.run_args import TIMED_RUNS_AT_LEAST, TIMED_RUNS_AT_MOST, ScriptHelp, check_run_args

#: Each entry's untimed first run: at least one whole game (a run plays whole games until its time is up).
WARM_UP_SECONDS = 0.01


def aec_decisions_per_second(make_env, seconds, seed=0, clock=time.process_time):
    """Random legal play via agent_iter/last/step; the observation is built every decision.

    The random pick is ``np.flatnonzero`` of the mask and Python's ``random``
    (numpy's ``Generator.integers`` costs more per call than a whole step of
    the compiled env); every env in the table runs this same loop."""
    env = make_env()
    uniform = random.Random(seed).random
    decisions, episode = 0, 0
    start = clock()
    while clock() - start < seconds:
        env.reset(seed=seed + episode)
        episode += 1
        for agent in env.agent_iter():
            observation, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(observation["action_mask"])
                action = int(legal[int(uniform() * len(legal))])
                decisions += 1
            env.step(action)
    return decisions / (clock() - start)


def engine_decisions_per_second(num_players, seconds, seed=0):
    """The bare engine: legal_actions() + step(), no observation."""
    from allfives_env.rules import Game, RulesConfig

    game = Game(RulesConfig(num_players=num_players))
    rng = np.random.default_rng(seed)
    uniform = random.Random(seed).random
    decisions = 0
    start = time.process_time()
    while time.process_time() - start < seconds:
        game.start_game(rng)
        while not game.game_over:
            if game.hand_over:
                game.start_next_hand(rng)
                continue
            actions = game.legal_actions()
            game.step(actions[int(uniform() * len(actions))])
            decisions += 1
    return decisions / (time.process_time() - start)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds of one timed run (at least 0.01)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per entry (the median is shown)")
    args = parser.parse_args(argv)
    try:
        check_run_args(args, positive=["seconds", "repeats"], at_least=TIMED_RUNS_AT_LEAST,
                       at_most=TIMED_RUNS_AT_MOST)
    except ValueError as exc:
        parser.error(str(exc))

    from pettingzoo.classic import connect_four_v3

    import allfives_env

    runs = {  # each takes the seconds to run for
        "connect_four_v3 (PettingZoo)": lambda seconds: aec_decisions_per_second(connect_four_v3.env, seconds),
    }
    for n in (2, 3, 4):
        runs[f"allfives env, {n} players"] = (
            lambda seconds, n=n: aec_decisions_per_second(lambda: allfives_env.env(num_players=n), seconds))
    for n in (2, 4):
        runs[f"allfives env, {n} players, backend=python"] = (
            lambda seconds, n=n: aec_decisions_per_second(lambda: allfives_env.env(num_players=n, backend="python"),
                                                          seconds))
    for n in (2, 4):
        runs[f"allfives engine only, {n} players"] = (
            lambda seconds, n=n: engine_decisions_per_second(n, seconds))
    for run in runs.values():  # untimed: the first game loads the compiled kernels (seconds otherwise counted)
        run(WARM_UP_SECONDS)
    results = {name: [] for name in runs}
    for _ in range(args.repeats):  # interleave so machine noise hits every entry alike
        for name, run in runs.items():
            results[name].append(run(args.seconds))
    peer = statistics.median(results["connect_four_v3 (PettingZoo)"])
    print(f"{'benchmark':46s} {'median decisions/s':>20s} {'vs connect_four':>16s}")
    for name, values in results.items():
        median = statistics.median(values)
        print(f"{name:46s} {median:20,.0f} {median / peer:15.2f}x")


if __name__ == "__main__":
    main()
