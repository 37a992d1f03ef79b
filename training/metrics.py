"""The run's metrics: ``metrics.csv`` (one row per update, fixed columns) and optional TensorBoard scalars."""

import csv
import math
import os

from .config import ConfigError

BASE_COLUMNS = [
    "update", "global_step", "wall_s", "sps", "sps_overall", "learner_transitions", "carried",
    "t_env", "t_inference", "t_bookkeeping", "t_update", "t_eval", "lr",
    "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac", "explained_variance",
    "train_win_pool", "train_win_greedy", "train_win_random", "pool_size",
]


def metric_columns(cfg) -> list:
    """The CSV columns of a run with ``cfg`` (a ``TrainConfig``): the base ones, then four per evaluation opponent."""
    cols = list(BASE_COLUMNS) + (["train_win_fixed"] if cfg.opp_fixed > 0 else [])
    for opp in cfg.eval_opponents:
        name = column_name(opp)
        cols += [f"eval_{name}_win", f"eval_{name}_lo", f"eval_{name}_hi", f"eval_{name}_margin"]
    return cols


def column_name(spec) -> str:
    """An agent spec as a column-name fragment (``search:samples=8`` -> ``search_samples_8``)."""
    return "".join(c if c.isalnum() else "_" for c in spec)


def logged_rows(run_dir, resume_update) -> tuple:
    """``(columns, rows)`` of ``RUN_DIR/metrics.csv`` that a resume from the checkpoint of update ``resume_update``
    keeps: the rows up to that update (a run killed after logging an update whose checkpoint never landed logged
    more). Read before anything of the run is rewritten: a file that is not a run's metrics (no ``update``
    column, an update that is not a whole number, a row longer than the header) is a :class:`ConfigError`."""
    path = os.path.join(run_dir, "metrics.csv")
    if not os.path.exists(path):
        return [], []
    allowed = "the metrics.csv the run wrote (or none: the resumed run starts a new one)"
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            columns = list(reader.fieldnames or [])
            if "update" not in columns:
                raise ConfigError(f"{path} has no 'update' column; allowed: {allowed}")
            rows = [_checked_row(row, reader.line_num, path, allowed) for row in reader]
    except (UnicodeDecodeError, csv.Error) as exc:
        raise ConfigError(f"{path} is not a CSV file ({exc}); allowed: {allowed}") from None
    return columns, [row for row in rows if int(row["update"]) <= resume_update]


def _checked_row(row, line, path, allowed) -> dict:
    if None in row:  # csv.DictReader keeps the values past the header under None
        raise ConfigError(f"{path} line {line} has more values than its header; allowed: {allowed}")
    try:
        int(row["update"])
    except (TypeError, ValueError):
        raise ConfigError(f"{path} line {line}: the update {row['update']!r} is not a whole number; "
                          f"allowed: {allowed}") from None
    return row


class MetricsLog:
    """Appends rows to ``RUN_DIR/metrics.csv`` and scalars to TensorBoard (``RUN_DIR/tb``).

    On resume from a checkpoint at ``resume_step``, ``logged`` holds what :func:`logged_rows` kept of the
    file: the CSV starts again with those rows (rows past the checkpoint are dropped), and TensorBoard drops
    its events from that step on. Columns the file has beyond this config's (the run evaluated against other
    opponents before an override) are kept, so no logged value is lost."""

    def __init__(self, run_dir, cfg, logged=None, resume_step=None):
        self.path = os.path.join(run_dir, "metrics.csv")
        old_columns, rows = logged or ([], [])
        self.columns = metric_columns(cfg)
        self.columns += [c for c in old_columns if c not in self.columns]
        with open(self.path, "w", newline="") as f:
            writer = csv.DictWriter(f, self.columns)
            writer.writeheader()
            writer.writerows(rows)
        self.tb = None
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            purge = None if resume_step is None else resume_step + 1  # events are logged at global steps
            self.tb = SummaryWriter(os.path.join(run_dir, "tb"), purge_step=purge)

    def write(self, row: dict):
        with open(self.path, "a", newline="") as f:
            csv.DictWriter(f, self.columns).writerow({k: _fmt(row.get(k)) for k in self.columns})
        if self.tb is not None:
            for k, v in row.items():
                if k not in ("update", "global_step") and isinstance(v, (int, float)) and not math.isnan(v):
                    self.tb.add_scalar(k, v, row["global_step"])

    def close(self):
        if self.tb is not None:
            self.tb.close()


def _fmt(v):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    return f"{v:.6g}" if isinstance(v, float) else v


def format_evaluation(results: dict, games=None) -> list:
    """One line per opponent: ``greedy  0.812 [0.788, 0.834]  margin +41.2  (1000 games)``."""
    lines, width = [], max([12, *map(len, results)])
    for opp, r in results.items():
        lines.append(f"  {opp:<{width}} {r['win_rate']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}]  "
                     f"margin {r['margin']:+.1f}  ({r.get('games', games)} games)")
    return lines


#: What a run folder may hold (arena.outputs.RUN_FILES and tb/), in the order the summary names it, with a note.
SUMMARY_FILES = (("config.yaml", ""), ("metrics.csv", ""), ("tb", " (TensorBoard)"), ("latest.pt", " (resume: --resume {run})"),
             ("best.pt", ""), ("policy.pt", ""))


def _run_files_text(run) -> str:
    """The files the run folder holds (tb/ and best.pt only with TensorBoard and evaluations on)."""
    shown = []
    for name, note in SUMMARY_FILES:
        path = os.path.join(run, name)
        if os.path.exists(path):
            shown.append(name + ("/" if os.path.isdir(path) else "") + note.format(run=run))
    return ", ".join(shown)


def format_summary(summary: dict) -> str:
    """The end of a run for people: where it is, what it did, how fast, how strong, what to load."""
    run = summary["run_dir"]
    split = ", ".join(f"{k[2:]} {v:.0%}" for k, v in summary["time_split"].items())
    minutes = summary["wall_s"] / 60
    lines = [f"run folder: {run}", f"  {_run_files_text(run)}",
             f"  play the result: ppo:{os.path.join(run, 'policy.pt')}",
             f"trained {summary['updates']:,} updates, {summary['global_step']:,} decisions in {minutes:.1f} min "
             f"({summary['sps_overall']:,.0f} decisions/s, {summary['torch_threads']} torch threads)",
             f"  time: {split}"]
    if summary["last_eval"]:
        lines.append("last evaluation (win rate [95% interval], points margin per game):")
        lines += format_evaluation(summary["last_eval"])
        lines.append(f"best win rate against {summary['best_metric']}: {summary['best']:.3f} (best.pt)")
    return "\n".join(lines)
