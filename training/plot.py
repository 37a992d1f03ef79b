"""Learning curves from a run folder: ``python -m training.plot RUN_DIR [--out DIR]``.

Writes ``winrate_steps.png`` and ``winrate_time.png`` (evaluation win rate
against each baseline with its 95% interval, over decisions and over wall
minutes) and ``training.png`` (losses, entropy, approx-KL, clip fraction,
explained variance, SPS) into ``RUN_DIR/plots`` (or ``--out``). Several run
folders can be given: their curves share the win-rate plots (seeds side by side).
"""

import argparse
import csv
import os
import sys

import yaml


def read_metrics(run_dir) -> dict:
    """metrics.csv as ``{column: [float or None, ...]}``."""
    path = os.path.join(run_dir, "metrics.csv")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{run_dir!r} has no metrics.csv (is it a run folder?)")
    with open(path) as f:
        rows = list(csv.DictReader(f))
    cols = rows[0].keys() if rows else []
    return {c: [float(r[c]) if r[c] not in ("", None) else None for r in rows] for c in cols}


def _eval_opponents(run_dir, metrics):
    cfg_path = os.path.join(run_dir, "config.yaml")
    if os.path.isfile(cfg_path):
        with open(cfg_path) as f:
            opps = (yaml.safe_load(f) or {}).get("eval_opponents")
        if opps:
            return ["".join(c if c.isalnum() else "_" for c in o) for o in opps]
    return sorted({c[5:-4] for c in metrics if c.startswith("eval_") and c.endswith("_win")})


def _series(metrics, x, y):
    pts = [(a, b) for a, b in zip(metrics[x], metrics[y]) if a is not None and b is not None]
    return [a for a, _ in pts], [b for _, b in pts]


def plot_runs(run_dirs, out_dir) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(out_dir, exist_ok=True)
    runs = [(d, read_metrics(d)) for d in run_dirs]
    written = []
    for xkey, xlabel, scale, name in (("global_step", "decisions (all seats)", 1.0, "winrate_steps.png"),
                                      ("wall_s", "wall time (minutes)", 1 / 60, "winrate_time.png")):
        fig, ax = plt.subplots(figsize=(8, 5))
        for run_dir, m in runs:
            label_run = os.path.basename(os.path.normpath(run_dir)) if len(runs) > 1 else ""
            for opp in _eval_opponents(run_dir, m):
                col = f"eval_{opp}_win"
                if col not in m:
                    continue
                xs, ys = _series(m, xkey, col)
                _, lo = _series(m, xkey, f"eval_{opp}_lo")
                _, hi = _series(m, xkey, f"eval_{opp}_hi")
                xs = [x * scale for x in xs]
                line, = ax.plot(xs, ys, marker="o", ms=3, label=f"vs {opp} {label_run}".strip())
                if len(lo) == len(xs) and len(hi) == len(xs):
                    ax.fill_between(xs, lo, hi, color=line.get_color(), alpha=0.15)
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_ylim(0, 1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("game win rate (95% Wilson interval)")
        ax.set_title("evaluation on fixed duplicate deals")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
        fig.tight_layout()
        path = os.path.join(out_dir, name)
        fig.savefig(path, dpi=110)
        plt.close(fig)
        written.append(path)
    panels = [("pg_loss", "policy loss"), ("v_loss", "value loss"), ("entropy", "entropy (legal actions)"),
              ("approx_kl", "approx KL"), ("clipfrac", "clip fraction"), ("explained_variance", "explained variance"),
              ("sps", "decisions / s (per update)"), ("train_win_greedy", "training win rate vs greedy")]
    fig, axes = plt.subplots(2, 4, figsize=(16, 7))
    for ax, (col, title) in zip(axes.flat, panels):
        for run_dir, m in runs:
            if col in m:
                xs, ys = _series(m, "global_step", col)
                ax.plot(xs, ys, lw=1, label=os.path.basename(os.path.normpath(run_dir)))
        ax.set_title(title)
        ax.set_xlabel("decisions")
        ax.grid(alpha=0.3)
    fig.tight_layout()
    path = os.path.join(out_dir, "training.png")
    fig.savefig(path, dpi=90)
    plt.close(fig)
    written.append(path)
    return written


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.plot", description="learning curves of training runs")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--out", metavar="DIR", help="where to write the PNGs (default: RUN_DIR/plots)")
    args = p.parse_args(argv)
    try:
        out = args.out or os.path.join(args.run_dirs[0], "plots")
        for path in plot_runs(args.run_dirs, out):
            print(path)
    except FileNotFoundError as exc:
        sys.stderr.write(f"training.plot: error: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
