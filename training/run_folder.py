"""The run folder: where a run writes, and the resolved config it keeps."""

import fcntl
import os
import sys
import time

import yaml

from allfives_env.arena.outputs import RUN_FILES, check_can_make_folder, check_outside_shipped_folders

from .config import ConfigError, to_dict

#: The shipped configs (``configs/`` of a checkout links here): a relative --config is read from it.
SHIPPED_CONFIGS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "configs")


def check_can_make(folder, what):
    """Refuse, before any work, a folder that is a file, that cannot be made or written to, or that is
    where the package keeps its shipped files."""
    try:
        check_outside_shipped_folders(folder, what, [SHIPPED_CONFIGS])
        check_can_make_folder(folder, what)
    except ValueError as exc:
        raise ConfigError(str(exc)) from None


# RUN_FILES: what a run writes in its folder; a folder holding one of them holds a run.


def run_files_in(folder) -> list:
    """The :data:`RUN_FILES` that ``folder`` holds (none: it holds no run)."""
    return [name for name in RUN_FILES if os.path.exists(os.path.join(folder, name))]


def check_new_run_folder(folder):
    """Refuse, before any work, a run folder that cannot be made or that already holds a run (a new
    run there would replace its checkpoints and logs)."""
    check_can_make(folder, "the run folder")
    held = run_files_in(folder)
    if "latest.pt" in held:
        raise ConfigError(f"the run folder {folder!r} already holds a run ({', '.join(held)}); continue it with "
                          f"--resume {folder}, or give a new folder")
    if held:  # e.g. a run stopped by an error before its first checkpoint
        raise ConfigError(f"the run folder {folder!r} already holds a run's files ({', '.join(held)}) but no "
                          "latest.pt to resume from; allowed: a new folder, or this one once those files are removed")


def new_run_dir(cfg) -> str:
    """A path for a new run, ``runs_dir/<run_name>_s<seed>_<time>`` (a suffix when that exists);
    made later, once the run has started. ``runs_dir`` must be a writable folder or makeable."""
    check_can_make(cfg.runs_dir, "runs_dir")
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = os.path.join(cfg.runs_dir, f"{cfg.run_name}_s{cfg.seed}_{stamp}")
    k = 1
    while os.path.exists(run_dir):
        k += 1
        run_dir = os.path.join(cfg.runs_dir, f"{cfg.run_name}_s{cfg.seed}_{stamp}_{k}")
    return run_dir


def lock_run_folder(run_dir):
    """An open descriptor of ``run_dir`` holding an exclusive lock on it (keep it open while training; ``os.close``
    it to release; the system releases it when the process ends, so a killed run leaves no stale lock). A folder
    locked by another process is refused: two trainers would interleave their checkpoints and logs. The
    folder itself is locked, so a refused run creates nothing. Where the file system has no locks (some
    network mounts), training goes on unlocked, saying so."""
    handle = os.open(run_dir, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(handle)
        raise ConfigError(f"the run in {run_dir} is being trained by another process; wait for it to end or stop "
                          "it (Ctrl-C saves latest.pt) before resuming") from None
    except OSError as exc:
        sys.stderr.write(f"note: {run_dir} cannot be locked ({exc.strerror}); make sure no other trainer uses it\n")
    return handle


def save_config(cfg, run_dir):
    """``RUN_DIR/config.yaml``: every field, so the run can be resumed or repeated."""
    with open(os.path.join(run_dir, "config.yaml"), "w") as f:
        yaml.safe_dump(to_dict(cfg), f, sort_keys=False)
