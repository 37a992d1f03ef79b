"""The run folder: where a run writes, and the resolved config it keeps."""

import os
import time

import yaml

from .config import to_dict


def make_run_dir(cfg) -> str:
    """A new folder ``runs_dir/<run_name>_s<seed>_<time>`` (a suffix when that exists)."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = os.path.join(cfg.runs_dir, f"{cfg.run_name}_s{cfg.seed}_{stamp}")
    k = 1
    while os.path.exists(run_dir):
        k += 1
        run_dir = os.path.join(cfg.runs_dir, f"{cfg.run_name}_s{cfg.seed}_{stamp}_{k}")
    os.makedirs(run_dir)
    return run_dir


def save_config(cfg, run_dir):
    """``RUN_DIR/config.yaml``: every field, so the run can be resumed or repeated."""
    with open(os.path.join(run_dir, "config.yaml"), "w") as f:
        yaml.safe_dump(to_dict(cfg), f, sort_keys=False)
