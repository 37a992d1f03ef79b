"""Decisions per second of the batched env next to the AEC env, in one run.

Both play uniformly random legal actions and build the observation and the
action mask at every decision:

* AEC env: ``env()`` driven by ``agent_iter/last/step`` (as
  ``benchmarks/aec_speed.py``), on both backends: the compiled one (the
  default) and the pure-Python engine.
* Vector env: ``VectorAllFives.step`` over B games, the actions drawn by
  ``random_legal_actions`` (numba, per-game streams) from the returned masks;
  the timing includes that draw.

Reports the median over ``--repeats`` timed runs of ``--seconds`` each (interleaved: one run of
every entry, then the next round), the
process CPU time per decision (a steadier figure on a shared machine), the
memory per game, and the time of the first reset+step (numba compile, or
loading it from the cache).

    python benchmarks/vector_speed.py [--sizes 1024 65536] [--players 2] [--seconds 2] [--repeats 5]
                                      [--parallel both|on|off]

Every entry's env is kept for the whole run (its repeats are interleaved with the others'), so the
memory is the sum over ``--sizes`` (and both ``--parallel`` modes), about 2.6 kB a game.

The threaded runs need idle cores: on a shared, busy machine (check ``uptime``)
they measure the other load more than the env.
"""

import argparse
import statistics
import time

import numpy as np
from aec_speed import aec_decisions_per_second  # the same AEC loop as benchmarks/aec_speed.py

from allfives_env.integrations.run_args import TIMED_RUNS_AT_LEAST, TIMED_RUNS_AT_MOST, ScriptHelp, check_run_args


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


class AecEntry:
    """The AEC env's timed runs (wall-clock rates, as the vector env's)."""

    def __init__(self, make_env):
        self.make_env, self.runs = make_env, []

    def run(self, seconds, repeat):
        return aec_decisions_per_second(self.make_env, seconds, seed=repeat, clock=time.perf_counter), None


class VectorEntry:
    """One batched env's timed runs, each going on from the games the last one left."""

    def __init__(self, venv):
        from allfives_env.vector import make_rng_state

        self.venv, self.runs = venv, []
        self.out = venv.reset(seed=1)
        self.pick = make_rng_state(2, venv.num_envs)
        self.actions = np.empty(venv.num_envs, np.int64)

    def run(self, seconds, repeat):
        rate, cpu_ns, self.out = vector_run(self.venv, seconds, self.pick, self.actions, self.out)
        return rate, cpu_ns


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=ScriptHelp)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1024, 65536], help="numbers of games B")
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--seconds", type=float, default=2.0, help="seconds of one timed run (at least 0.01)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs per entry (the median is shown)")
    parser.add_argument("--parallel", choices=["both", "on", "off"], default="both",
                        help="numba threads over games: measure with, without, or both")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions
    from allfives_env.vector.batched import MAX_NUM_ENVS

    try:
        check_run_args(args, positive=["sizes", "seconds", "repeats"], at_least=TIMED_RUNS_AT_LEAST,
                       at_most={**TIMED_RUNS_AT_MOST, "sizes": MAX_NUM_ENVS})
    except ValueError as exc:
        parser.error(str(exc))

    modes = {"both": [False, True], "on": [True], "off": [False]}[args.parallel]
    for parallel in modes:
        probe = VectorAllFives(8, num_players=args.players, parallel=parallel)
        out = probe.reset(seed=0)
        probe.step(random_legal_actions(out.mask, make_rng_state(0, 8)))
    print(f"import + first reset/step (compile or cache load): {time.perf_counter() - start:.1f} s")

    from allfives_env import env

    aec = {backend: AecEntry(lambda backend=backend: env(num_players=args.players, backend=backend))
           for backend in ("numba", "python")}
    vectors = [VectorEntry(VectorAllFives(size, num_players=args.players, parallel=parallel))
               for size in args.sizes for parallel in modes]
    entries = [*aec.values(), *vectors]
    for entry in vectors:
        entry.run(min(0.3, args.seconds), 0)  # warm up
    for repeat in range(args.repeats):  # interleaved: a slower spell of the machine hits every entry alike
        for entry in entries:
            entry.runs.append(entry.run(args.seconds, repeat))

    aec_medians = {}
    for backend, entry in aec.items():
        rates = [rate for rate, _ in entry.runs]
        aec_medians[backend] = statistics.median(rates)
        print(f"AEC env ({args.players} players, backend={backend}): {aec_medians[backend]:,.0f} decisions/s "
              f"(median of {args.repeats}: {', '.join(f'{x:,.0f}' for x in rates)})")
    for entry in vectors:
        venv, size = entry.venv, entry.venv.num_envs
        rate = statistics.median(r for r, _ in entry.runs)
        cpu_ns = statistics.median(c for _, c in entry.runs)
        print(f"vector B={size:>6} (parallel={venv.parallel}): {rate:,.0f} decisions/s "
              f"= {rate / aec_medians['numba']:.0f}x AEC (numba), {rate / aec_medians['python']:.0f}x AEC (python); "
              f"CPU {cpu_ns:.0f} ns/decision; "
              f"{venv.memory_bytes() / size:,.0f} bytes/game "
              f"(runs: {', '.join(f'{r:,.0f}' for r, _ in entry.runs)})")


if __name__ == "__main__":
    main()
