"""The training loop: updates, evaluations, logs and timed checkpoints until the budget is spent."""

import math
import os
import signal
import sys
import threading
import time

from .checkpoint import export_policy
from .config import ConfigError, TrainConfig
from .metrics import MetricsLog, logged_rows
from .run_folder import check_can_make, check_new_run_folder, lock_run_folder, new_run_dir, save_config
from .trainer import Trainer, available_cores


def train(cfg: TrainConfig, run_dir=None, resume=False) -> dict:
    """Run (or, with ``resume``, continue) training in ``run_dir``; returns a summary dict.

    Everything that can be refused (the config, the device, ``init_from``, the folder) is
    checked before the run folder is made: a refused run leaves nothing behind."""
    if run_dir is None:
        run_dir = new_run_dir(cfg)
    elif resume:
        check_can_make(run_dir, "the run folder")
    else:
        check_new_run_folder(run_dir)
    trainer = Trainer(cfg, run_dir, resume=resume)
    lock = lock_run_folder(run_dir) if resume else None  # before latest.pt is read: no other trainer writes it
    logged = None
    # from before the folder is made: a stop asked for while it is set up writes latest.pt at the first
    # update's boundary, so the folder can be resumed (interrupted there, it held config.yaml alone)
    stop = StopRequest()
    previous = stop.install()
    try:
        if resume:  # everything a resume reads is checked before config.yaml is rewritten
            trainer.restore(os.path.join(run_dir, "latest.pt"))
            if budget_spent(trainer, cfg):  # nothing to run: say so rather than re-export the same policy
                raise ConfigError(_budget_spent_text(trainer, cfg, run_dir))
            logged = logged_rows(run_dir, trainer.update)
        os.makedirs(run_dir, exist_ok=True)
        if lock is None:  # a new run's folder exists only now
            lock = lock_run_folder(run_dir)
        save_config(cfg, run_dir)
        return _run(trainer, cfg, run_dir, logged, stop)
    finally:
        stop.restore(previous)
        if lock is not None:
            os.close(lock)


def _run(trainer, cfg, run_dir, logged, stop) -> dict:
    """Train in ``run_dir`` (made, locked, its config written) until the budget is spent or ``stop`` (a
    :class:`StopRequest`) is asked for; ``logged``: what a resumed run keeps of its metrics.csv
    (:func:`~.metrics.logged_rows`), None for a new run."""
    origin = _THREADS_ORIGIN[trainer.threads_source]
    sys.stderr.write(f"training in {run_dir}: {trainer.torch_threads} torch thread(s){origin}\n")
    cores = available_cores()
    if trainer.torch_threads > cores:  # oversubscribed threads make each update many times slower
        sys.stderr.write(f"warning: torch_threads={trainer.torch_threads} is more than the {cores} core(s) this "
                         f"process may use; updates will be slower (leave torch_threads unset to use the free cores)\n")
    log = MetricsLog(run_dir, cfg, logged, resume_step=trainer.global_step if logged is not None else None)
    bar = _progress_bar(cfg, trainer)
    try:
        _train_loop(trainer, cfg, log, bar, stop)
        trainer.save("latest.pt")
        if stop.requested:  # Ctrl-C or SIGTERM: stop between updates, so latest.pt is consistent
            sys.stderr.write(f"\ninterrupted: wrote {os.path.join(run_dir, 'latest.pt')} (play it: "
                             f"ppo:{os.path.join(run_dir, 'latest.pt')}); continue with --resume {run_dir}\n")
            if os.path.exists(os.path.join(run_dir, "policy.pt")):  # a resumed run: from the budget before
                sys.stderr.write(f"note: {os.path.join(run_dir, 'policy.pt')} is the policy of an earlier end of "
                                 "this run, not of this stop\n")
            raise KeyboardInterrupt
        export_policy(os.path.join(run_dir, "policy.pt"), trainer.net, trainer.rules,
                      extra={"global_step": trainer.global_step, "update": trainer.update, "last_eval": trainer.last_eval},
                      features=cfg.features)
    finally:
        if bar is not None:
            bar.close()
        log.close()
    totals = trainer.totals
    busy = sum(totals.values())
    return {"run_dir": run_dir, "updates": trainer.update, "global_step": trainer.global_step,
            "wall_s": trainer.elapsed, "sps_overall": trainer.global_step / max(trainer.elapsed, 1e-9),
            "torch_threads": trainer.torch_threads,
            "time_split": {k: v / busy for k, v in totals.items()} if busy else {},
            "last_eval": trainer.last_eval, "best": trainer.best, "best_metric": cfg.best_metric,
            "eval_games": cfg.eval_games}


_THREADS_ORIGIN = {"config": "", "measured": " (chosen from the free cores; set torch_threads to fix it)",
                   "checkpoint": " (the count this run started with, kept from latest.pt)"}


class StopRequest:
    """Ctrl-C or SIGTERM (``kill``) asks training to stop after the update in progress
    (a checkpoint taken mid-update would hold a collected but untrained rollout);
    a second signal stops at once, keeping the last timed ``latest.pt``."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self):
        self.requested = False

    def __call__(self, signum, frame):
        if self.requested:
            raise KeyboardInterrupt(f"signal {signum}")
        self.requested = True
        sys.stderr.write("\nstopping after this update (signal again to stop at once, without saving)\n")

    def install(self):
        """Set the handlers (main thread only); returns the previous ones."""
        if threading.current_thread() is not threading.main_thread():
            return None
        return {sig: signal.signal(sig, self) for sig in self.SIGNALS}

    def restore(self, previous):
        for sig, handler in (previous or {}).items():
            signal.signal(sig, handler)


def _budget_spent_text(trainer, cfg, run_dir) -> str:
    # the example doubles what the run has used (an override below that is spent already)
    if trainer.global_step >= cfg.total_timesteps:
        spent, more = f"{trainer.global_step:,} decisions", f"total_timesteps={2 * trainer.global_step}"
    else:
        minutes = trainer.elapsed / 60
        spent, more = f"{minutes:.1f} minutes", f"max_minutes={max(2 * cfg.max_minutes, math.ceil(2 * minutes)):g}"
    return (f"the run in {run_dir} has used its budget ({spent}); nothing to resume until it is raised, "
            f"e.g. --resume {run_dir} {more}")


def budget_spent(trainer, cfg) -> bool:
    """The decision budget or the time budget (``max_minutes``) is used up."""
    return trainer.global_step >= cfg.total_timesteps or bool(cfg.max_minutes and trainer.elapsed >= cfg.max_minutes * 60)


def _train_loop(trainer, cfg, log, bar, stop):
    """Updates until the budget is spent or a stop is asked for. The first update and every
    ``eval_every``-th are evaluated, and so is the budget's last (one row per update, whatever happens).
    A stop is not evaluated: an evaluation there could write ``best.pt`` and raise the best, so an
    interrupted and resumed run would not be the uninterrupted one (and Ctrl-C would wait for it)."""
    start = time.perf_counter()
    base_elapsed = trainer.elapsed
    last_ckpt = start
    while not budget_spent(trainer, cfg) and not stop.requested:
        row = trainer.iterate()
        trainer.elapsed = base_elapsed + time.perf_counter() - start
        last = budget_spent(trainer, cfg)
        if cfg.eval_every and (trainer.update % cfg.eval_every == 0 or trainer.update == 1 or last):
            row.update(trainer.evaluate())
            trainer.elapsed = base_elapsed + time.perf_counter() - start
        row["wall_s"] = trainer.elapsed
        row["sps_overall"] = trainer.global_step / max(trainer.elapsed, 1e-9)
        log.write(row)
        if not (last or stop.requested) and time.perf_counter() - last_ckpt >= cfg.checkpoint_minutes * 60:
            trainer.save("latest.pt")
            last_ckpt = time.perf_counter()
        if bar is not None:
            _show_progress(bar, trainer, row, cfg)


def _progress_bar(cfg, trainer):
    if not cfg.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=cfg.total_timesteps, initial=trainer.global_step, unit="dec", unit_scale=True,
                dynamic_ncols=True, file=sys.stderr, mininterval=1.0)


def expected_end(trainer, cfg) -> int:
    """The decisions at which the run will end: ``total_timesteps``, or fewer when ``max_minutes``
    comes first at the rate so far."""
    if not cfg.max_minutes or trainer.elapsed <= 0:
        return cfg.total_timesteps
    rate = trainer.global_step / trainer.elapsed
    left = max(0.0, cfg.max_minutes * 60 - trainer.elapsed)
    return int(min(cfg.total_timesteps, trainer.global_step + rate * left))


def _show_progress(bar, trainer, row, cfg):
    bar.total = max(expected_end(trainer, cfg), trainer.global_step)  # the real end, so the ETA is true
    bar.update(trainer.global_step - bar.n)
    post = {"sps": f"{row['sps']:.0f}", "ent": f"{row['entropy']:.2f}"}
    for opp, r in trainer.last_eval.items():
        post[f"vs_{opp[:9]}"] = f"{r['win_rate']:.2f}"
    bar.set_postfix(post, refresh=False)
