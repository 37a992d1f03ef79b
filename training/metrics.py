"""The run's metrics: ``metrics.csv`` (one row per update, fixed columns) and optional TensorBoard scalars."""

import csv
import math
import os

BASE_COLUMNS = [
    "update", "global_step", "wall_s", "sps", "sps_overall", "learner_transitions", "carried",
    "t_env", "t_inference", "t_bookkeeping", "t_update", "t_eval", "lr",
    "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac", "explained_variance",
    "train_win_pool", "train_win_greedy", "train_win_random", "pool_size",
]


def metric_columns(cfg) -> list:
    """The CSV columns of a run with ``cfg`` (a ``TrainConfig``): the base ones, then four per evaluation opponent."""
    cols = list(BASE_COLUMNS)
    for opp in cfg.eval_opponents:
        name = column_name(opp)
        cols += [f"eval_{name}_win", f"eval_{name}_lo", f"eval_{name}_hi", f"eval_{name}_margin"]
    return cols


def column_name(spec) -> str:
    """An agent spec as a column-name fragment (``search:samples=8`` -> ``search_samples_8``)."""
    return "".join(c if c.isalnum() else "_" for c in spec)


class MetricsLog:
    """Appends rows to ``RUN_DIR/metrics.csv``; on resume keeps only the rows up to ``resume_update``."""

    def __init__(self, run_dir, cfg, resume_update=None):
        self.path = os.path.join(run_dir, "metrics.csv")
        self.columns = metric_columns(cfg)
        rows = []
        if resume_update is not None and os.path.exists(self.path):
            with open(self.path) as f:
                rows = [r for r in csv.DictReader(f) if int(r["update"]) <= resume_update]
        with open(self.path, "w", newline="") as f:
            writer = csv.DictWriter(f, self.columns)
            writer.writeheader()
            writer.writerows(rows)
        self.tb = None
        if cfg.tensorboard:
            from torch.utils.tensorboard import SummaryWriter

            self.tb = SummaryWriter(os.path.join(run_dir, "tb"))

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
