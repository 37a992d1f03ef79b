"""Numbers of finished runs: ``python -m training.summary RUN_DIR... [--reach 0.6 --vs greedy]``.

For each run: decisions, wall time, mean decisions/s (per update and overall),
the split of time between environment, inference, bookkeeping, update and
evaluation, the last and best evaluation, and the first evaluation where the
win rate against ``--vs`` reached ``--reach`` (decisions and wall minutes).
With several runs (seeds) it also prints the spread of the time to reach it.
"""

import argparse
import statistics
import sys

from allfives_env.cli import OneLineParser, number_arg

from .metrics import column_name
from .plot import NEEDED_COLUMNS, eval_opponents, read_metrics

#: What a summary reads of metrics.csv: the columns of every plot, the speed and the split of time.
SUMMARY_COLUMNS = NEEDED_COLUMNS + ("sps", "t_env", "t_inference", "t_bookkeeping", "t_update", "t_eval")
DEFAULT_VS = "greedy"


def summarize(run_dir, reach=0.6, vs=DEFAULT_VS, metrics=None) -> dict:
    """One run's speed, time split and evaluations against ``vs`` (``metrics``: its metrics.csv, if read)."""
    m = read_metrics(run_dir, SUMMARY_COLUMNS) if metrics is None else metrics
    ups = [i for i, s in enumerate(m["sps"]) if s is not None]
    parts = ("t_env", "t_inference", "t_bookkeeping", "t_update", "t_eval")
    totals = {p: sum(v for v in m[p] if v is not None) for p in parts}
    busy = sum(totals.values()) or 1.0
    last = len(m["global_step"]) - 1  # read_metrics keeps only the rows with an update logged
    out = {"run": run_dir, "decisions": int(m["global_step"][last]), "wall_min": m["wall_s"][last] / 60,
           "sps_per_update_mean": statistics.mean(m["sps"][i] for i in ups) if ups else float("nan"),
           "sps_overall": m["global_step"][last] / max(m["wall_s"][last], 1e-9),
           "time_split": {p[2:]: totals[p] / busy for p in parts}}
    col = f"eval_{vs}_win"
    evals = [i for i, v in enumerate(m.get(col, [])) if v is not None]
    out["reached"] = None
    for i in evals:
        if m[col][i] >= reach:
            out["reached"] = {"decisions": int(m["global_step"][i]), "wall_min": m["wall_s"][i] / 60, "win": m[col][i]}
            break
    if evals:
        best = max(evals, key=lambda i: m[col][i])
        out["best_eval"] = {"update": int(m["update"][best]), "win": m[col][best],
                            "ci": [m[f"eval_{vs}_lo"][best], m[f"eval_{vs}_hi"][best]]}
        out["last_eval"] = {c[5:-4]: m[c][evals[-1]] for c in m  # the opponents that evaluation played
                            if c.startswith("eval_") and c.endswith("_win") and m[c][evals[-1]] is not None}
    return out


def _share(text):
    """An argparse type: a win rate to reach, above 0 and at most 1 (nan or 2 would never be reached)."""
    allowed = "a share above 0 and at most 1 (0.6 is a 60% win rate)"
    value = number_arg(text, allowed)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: {allowed}")
    return value


def pick_opponent(metrics_of, vs=None) -> str:
    """The opponent to sum the runs up against (``metrics_of``: run folder -> its metrics), as its column
    name: ``vs``, which every run must have been evaluated against (else a ``ValueError`` naming those it
    was), or by default greedy, or the first evaluated run's first opponent when it was not evaluated
    against greedy."""
    given = vs is not None
    for run_dir, metrics in metrics_of.items():
        opponents = eval_opponents(run_dir, metrics)
        if vs is None and opponents:
            vs = DEFAULT_VS if DEFAULT_VS in opponents else opponents[0]
        # a run without evaluations is summed up all the same (nothing reached), unless --vs names an opponent
        if (given or opponents) and column_name(vs) not in opponents:
            raise ValueError(f"--vs {vs}: {run_dir!r} was not evaluated against it; allowed: "
                             f"{', '.join(opponents) or 'none (the run has no evaluation)'}")
    return column_name(vs or DEFAULT_VS)


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m training.summary", description=__doc__.splitlines()[0])
    p.add_argument("run_dirs", nargs="+")
    p.add_argument("--reach", type=_share, default=0.6, help="win rate to reach, above 0 and at most 1 (default 0.6)")
    p.add_argument("--vs", help=f"evaluation opponent, one every run was evaluated against (default {DEFAULT_VS}, "
                                "or the first evaluated run's first opponent when it was not evaluated against greedy)")
    args = p.parse_args(argv)
    try:  # every run is read before any is printed: a refused one leaves no half summary
        metrics_of = {run: read_metrics(run, SUMMARY_COLUMNS) for run in args.run_dirs}
        args.vs = pick_opponent(metrics_of, args.vs)
        rows = [summarize(run, args.reach, args.vs, metrics_of[run]) for run in args.run_dirs]
    except (FileNotFoundError, ValueError) as exc:
        sys.stderr.write(f"training.summary: error: {exc}\n")
        return 2
    for run, s in zip(args.run_dirs, rows):
        split = ", ".join(f"{k} {v:.0%}" for k, v in s["time_split"].items())
        print(f"{run}: {s['decisions']:,} decisions in {s['wall_min']:.1f} min; "
              f"{s['sps_per_update_mean']:,.0f} dec/s per update, {s['sps_overall']:,.0f} overall; time: {split}")
        if "best_eval" in s:
            lo, hi = s["best_eval"]["ci"]
            last = ", ".join(f"{opp} {win:.3f}" for opp, win in s["last_eval"].items())
            print(f"  best vs {args.vs}: {s['best_eval']['win']:.3f} [{lo:.3f}, {hi:.3f}] at update "
                  f"{s['best_eval']['update']}; last evaluation: {last}")
        r = s["reached"]
        if "best_eval" not in s:  # never evaluated against it: nothing to reach
            print(f"  no evaluation against {args.vs}")
            continue
        print(f"  reached {args.reach:.0%} vs {args.vs}: " +
              (f"after {r['decisions']:,} decisions, {r['wall_min']:.1f} min" if r else "not reached"))
    reached = [s["reached"]["wall_min"] for s in rows if s["reached"]]
    if len(rows) > 1:
        print(f"time to {args.reach:.0%} vs {args.vs}: reached in {len(reached)}/{len(rows)} runs"
              + (f"; minutes min {min(reached):.1f} / median {statistics.median(reached):.1f} / max {max(reached):.1f}"
                 if reached else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
