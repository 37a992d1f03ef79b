"""Decisions per second of the batched env next to the AEC env, in one run.

Both play uniformly random legal actions and build the observation and the
action mask at every decision:

* AEC env: ``env()`` driven by ``agent_iter/last/step`` (as
  ``benchmarks/aec_speed.py``), on both backends: the compiled one (the
  default) and the pure-Python engine.
* Vector env: ``VectorAllFives.step`` over B games, the actions drawn by
  ``random_legal_actions`` (numba, per-game streams) from the returned masks;
  the timing includes that draw.

Reports the median over ``--repeats`` timed runs of ``--seconds`` each, the
process CPU time per decision (a steadier figure on a shared machine), the
memory per game, and the time of the first reset+step (numba compile, or
loading it from the cache).

    python benchmarks/vector_speed.py [--sizes 1024 65536] [--players 2] [--seconds 2] [--repeats 5]
                                      [--parallel both|on|off]

The threaded runs need idle cores: on a shared, busy machine (check ``uptime``)
they measure the other load more than the env.
"""

import argparse
import statistics
import time

import numpy as np
from aec_speed import aec_decisions_per_second  # the same AEC loop as benchmarks/aec_speed.py

from allfives_env.integrations.run_args import check_run_args


def vector_run(venv, seconds, pick, actions, out):
    """Step for about ``seconds``; returns (decisions/s wall, CPU ns per decision, last output)."""
    from allfives_env.vector import random_legal_actions

    steps = 0
    cpu, start = time.process_time(), time.perf_counter()
    while True:
        for _ in range(8):
            out = venv.step(random_legal_actions(out.mask, pick, actions))
        steps += 8
        wall = time.perf_counter() - start
        if wall >= seconds:
            break
    decisions = steps * venv.num_envs
    return decisions / wall, (time.process_time() - cpu) / decisions * 1e9, out


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 65536], help="numbers of games B")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--seconds", type=float, default=2.0, help="length of one timed run")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per entry (the median is shown)")
    parser.add_argument("--parallel", choices=["both", "on", "off"], default="both",
                        help="numba threads over games: measure with, without, or both")
    args = parser.parse_args(argv)
    try:
        check_run_args(args, positive=["sizes", "seconds", "repeats"])
    except ValueError as exc:
        parser.error(str(exc))

    start = time.perf_counter()
    from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions

    modes = {"both": [False, True], "on": [True], "off": [False]}[args.parallel]
    for parallel in modes:
        probe = VectorAllFives(8, num_players=args.players, parallel=parallel)
        out = probe.reset(seed=0)
        probe.step(random_legal_actions(out.mask, make_rng_state(0, 8)))
    print(f"import + first reset/step (compile or cache load): {time.perf_counter() - start:.1f} s")

    from allfives_env import env

    aec_medians = {}
    for backend in ("numba", "python"):
        aec = [aec_decisions_per_second(lambda: env(num_players=args.players, backend=backend), args.seconds,
                                        seed=r, clock=time.perf_counter) for r in range(args.repeats)]
        aec_medians[backend] = statistics.median(aec)
        print(f"AEC env ({args.players} players, backend={backend}): {aec_medians[backend]:,.0f} decisions/s "
              f"(median of {args.repeats}: {', '.join(f'{x:,.0f}' for x in aec)})")

    for size, parallel in [(size, parallel) for size in args.sizes for parallel in modes]:
        venv = VectorAllFives(size, num_players=args.players, parallel=parallel)
        out = venv.reset(seed=1)
        pick = make_rng_state(2, size)
        actions = np.empty(size, np.int64)
        vector_run(venv, min(0.3, args.seconds), pick, actions, out)  # warm up
        runs = []
        for _ in range(args.repeats):
            rate, cpu_ns, out = vector_run(venv, args.seconds, pick, actions, out)
            runs.append((rate, cpu_ns))
        rate = statistics.median(r for r, _ in runs)
        cpu_ns = statistics.median(c for _, c in runs)
        print(f"vector B={size:>6} (parallel={venv.parallel}): {rate:,.0f} decisions/s "
              f"= {rate / aec_medians['numba']:.0f}x AEC (numba), {rate / aec_medians['python']:.0f}x AEC (python); "
              f"CPU {cpu_ns:.0f} ns/decision; "
              f"{venv.memory_bytes() / size:,.0f} bytes/game "
              f"(runs: {', '.join(f'{r:,.0f}' for r, _ in runs)})")


if __name__ == "__main__":
    main()
