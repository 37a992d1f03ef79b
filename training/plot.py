"""Learning curves from a run folder: ``python -m training.plot RUN_DIR [--out DIR]``.

Writes ``winrate_steps.png`` and ``winrate_time.png`` (evaluation win rate
against each baseline with its 95% interval, over decisions and over wall
minutes) and ``training.png`` (losses, entropy, approx-KL, clip fraction,
explained variance, SPS) into ``RUN_DIR/plots`` (or ``--out``). Several run
folders can be given: their curves share the win-rate plots (seeds side by side).

``--chain``: the folders are consecutive phases of one agent (each started from
the previous one's ``latest.pt``, by ``init_from`` or a copy and ``--resume``):
each phase is cut at the update of its ``latest.pt`` (what the next phase started
from), later phases continue its decision count and wall time, and the curves
are drawn as one run with the phase starts marked.
"""

import csv
import os
import sys

from allfives_env.arena.outputs import check_output_folder, check_outside_shipped_folders
from allfives_env.cli import OneLineParser

from .config import read_config_file
from .metrics import column_name
from .run_folder import SHIPPED_CONFIGS

#: The columns of metrics.csv that every plot and summary reads.
NEEDED_COLUMNS = ("update", "global_step", "wall_s")


def read_metrics(run_dir, needed=NEEDED_COLUMNS) -> dict:
    """metrics.csv as ``{column: [float or None, ...]}``; a file with no update logged yet, without the
    ``needed`` columns or with a value that is not a number is a ``ValueError`` (nothing to plot or sum up)."""
    path = os.path.join(run_dir, "metrics.csv")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{run_dir!r} has no metrics.csv (is it a run folder?)")
    with open(path) as f:
        reader = csv.DictReader(f)
        rows = [row for row in reader if row.get("global_step") not in ("", None)]
    if not rows:
        raise ValueError(f"{run_dir!r} has no update logged in its metrics.csv yet")
    missing = [c for c in needed if c not in reader.fieldnames]
    if missing:
        raise ValueError(f"{path} has no column {', '.join(missing)}; allowed: the metrics.csv a run writes")
    cols = rows[0].keys()
    try:
        return {c: [float(r[c]) if r[c] not in ("", None) else None for r in rows] for c in cols}
    except (TypeError, ValueError):  # a word where a number goes, or a row longer than the header
        raise ValueError(f"{path} holds a value that is not a number; allowed: the metrics.csv a run writes") from None


def eval_opponents(run_dir, metrics) -> list:
    """The column names (:func:`~.metrics.column_name`) of the opponents the run was evaluated against: its
    config's ``eval_opponents`` in order, then those only metrics.csv's columns hold (evaluated before a
    resume that changed them). A config.yaml that is not a config (not YAML, not a mapping,
    ``eval_opponents`` not a list of specs) is a ``ValueError``."""
    logged = sorted({c[5:-4] for c in metrics if c.startswith("eval_") and c.endswith("_win")})
    cfg_path = os.path.join(run_dir, "config.yaml")
    if os.path.isfile(cfg_path):
        opps = read_config_file(cfg_path).get("eval_opponents")
        if opps is not None and (not isinstance(opps, list) or not all(isinstance(o, str) for o in opps)):
            raise ValueError(f"{cfg_path}: eval_opponents is {opps!r}; allowed: a list of agent specs")
        if opps:
            named = [column_name(o) for o in opps]
            return named + [o for o in logged if o not in named]
    return logged


def chain_metrics(run_dirs) -> tuple:
    """``(metrics, phase_starts)``: the phases' metrics joined into one run (see ``--chain``)."""
    from .checkpoint import load_checkpoint

    joined, starts = {}, []
    step0 = time0 = 0.0
    for k, run_dir in enumerate(run_dirs):
        m = read_metrics(run_dir)
        rows = range(len(m["update"]))
        if k < len(run_dirs) - 1:  # keep what the next phase started from
            last = load_checkpoint(os.path.join(run_dir, "latest.pt"))["update"]
            rows = [i for i in rows if m["update"][i] is not None and m["update"][i] <= last]
        steps = [m["global_step"][i] for i in rows if m["global_step"][i] is not None]
        restarted = k > 0 and steps and steps[0] < step0
        offset_step, offset_time = (step0, time0) if restarted else (0.0, 0.0)
        starts.append((os.path.basename(os.path.normpath(run_dir)), offset_step, offset_time))
        before = len(joined["update"]) if joined else 0  # every column's length here: rows of earlier phases
        for col, values in m.items():
            column = joined.setdefault(col, [None] * before)  # a column new in this phase: None before it
            for i in rows:
                v = values[i]
                if v is not None and col == "global_step":
                    v += offset_step
                elif v is not None and col == "wall_s":
                    v += offset_time
                column.append(v)
        width = max(len(c) for c in joined.values())
        for column in joined.values():
            column.extend([None] * (width - len(column)))
        step0 = max((v for v in joined["global_step"] if v is not None), default=0.0)
        time0 = max((v for v in joined["wall_s"] if v is not None), default=0.0)
    return joined, starts


def _series(metrics, x, y):
    pts = [(a, b) for a, b in zip(metrics[x], metrics[y]) if a is not None and b is not None]
    return [a for a, _ in pts], [b for _, b in pts]


def plot_runs(run_dirs, out_dir, chain=False) -> list:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    starts = []
    if chain:
        joined, starts = chain_metrics(run_dirs)
        runs = [(run_dirs[-1], joined)]
    else:
        runs = [(d, read_metrics(d)) for d in run_dirs]
    opponents = {run_dir: eval_opponents(run_dir, m) for run_dir, m in runs}
    os.makedirs(out_dir, exist_ok=True)  # only once every run (and its config) has been read
    written = []
    for xkey, xlabel, scale, name in (("global_step", "decisions (all seats)", 1.0, "winrate_steps.png"),
                                      ("wall_s", "wall time (minutes)", 1 / 60, "winrate_time.png")):
        fig, ax = plt.subplots(figsize=(8, 5))
        for run_dir, m in runs:
            label_run = os.path.basename(os.path.normpath(run_dir)) if len(runs) > 1 else ""
            for opp in opponents[run_dir]:
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
        for k, (phase, step, minutes) in enumerate(starts[1:], start=1):
            x = (step if xkey == "global_step" else minutes) * scale
            ax.axvline(x, color="black", lw=0.8, ls=":")
            ax.text(x, 0.02 + 0.05 * (k % 2), f" {phase}", fontsize=7, rotation=0)
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


def check_plots_folder(out, where, given):
    """Refuse, before any run is read, a plots folder that is a file, or an existing one that is not writable.
    A folder given by ``--out`` may be new, as ``RUN_DIR/plots`` is; the folder it goes in must exist."""
    if os.path.exists(out) and not os.path.isdir(out):
        raise ValueError(f"{where} is a file, not a folder; allowed: a folder (new or existing) for the PNGs")
    check_outside_shipped_folders(out, "--out" if given else "the plots folder", [SHIPPED_CONFIGS])
    if os.path.isdir(out):
        check_output_folder(out, where, probe=False)
    elif given:
        check_output_folder(os.path.dirname(os.path.abspath(out)), where)


def main(argv=None) -> int:
    p = OneLineParser(prog="python -m training.plot", description="learning curves of training runs")
    p.add_argument("run_dirs", nargs="+", metavar="RUN_DIR")
    p.add_argument("--out", metavar="DIR", help="where to write the PNGs (default: RUN_DIR/plots)")
    p.add_argument("--chain", action="store_true",
                   help="the folders are consecutive phases of one agent: join them into one curve")
    args = p.parse_args(argv)
    try:
        out = args.out or os.path.join(args.run_dirs[0], "plots")
        check_plots_folder(out, f"--out {out}" if args.out else f"the plots folder {out}", given=bool(args.out))
        for path in plot_runs(args.run_dirs, out, chain=args.chain):
            print(path)
    except (FileNotFoundError, ValueError) as exc:
        sys.stderr.write(f"training.plot: error: {exc}\n")
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
