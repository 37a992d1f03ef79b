"""The training loop: updates, evaluations, logs and timed checkpoints until the budget is spent."""

import os
import signal
import sys
import threading
import time

from .checkpoint import export_policy
from .config import TrainConfig
from .metrics import MetricsLog
from .run_folder import make_run_dir, save_config
from .trainer import Trainer


def train(cfg: TrainConfig, run_dir=None, resume=False) -> dict:
    """Run (or, with ``resume``, continue) training in ``run_dir``; returns a summary dict."""
    run_dir = run_dir or make_run_dir(cfg)
    os.makedirs(run_dir, exist_ok=True)
    trainer = Trainer(cfg, run_dir)
    if resume:
        trainer.restore(os.path.join(run_dir, "latest.pt"))
    save_config(cfg, run_dir)
    log = MetricsLog(run_dir, cfg, resume_update=trainer.update if resume else None)
    bar = _progress_bar(cfg, trainer.global_step)
    stop = StopRequest()
    previous = stop.install()
    try:
        _train_loop(trainer, cfg, log, bar, stop)
        if stop.requested:  # Ctrl-C or SIGTERM: stop between updates, so latest.pt is consistent
            trainer.save("latest.pt")
            sys.stderr.write(f"\ninterrupted: wrote {os.path.join(run_dir, 'latest.pt')}; "
                             f"continue with --resume {run_dir}\n")
            raise KeyboardInterrupt
        trainer.save("latest.pt")
        export_policy(os.path.join(run_dir, "policy.pt"), trainer.net, trainer.rules,
                      extra={"global_step": trainer.global_step, "update": trainer.update, "last_eval": trainer.last_eval},
                      features=cfg.features)
    finally:
        stop.restore(previous)
        if bar is not None:
            bar.close()
        log.close()
    totals = trainer.totals
    busy = sum(totals.values())
    return {"run_dir": run_dir, "updates": trainer.update, "global_step": trainer.global_step,
            "wall_s": trainer.elapsed, "sps_overall": trainer.global_step / max(trainer.elapsed, 1e-9),
            "time_split": {k: v / busy for k, v in totals.items()} if busy else {},
            "last_eval": trainer.last_eval, "best": trainer.best}


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


def _progress_bar(cfg, initial):
    if not cfg.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=cfg.total_timesteps, initial=initial, unit="dec", unit_scale=True, dynamic_ncols=True,
                file=sys.stderr, mininterval=1.0)


def _train_loop(trainer, cfg, log, bar, stop):
    """Updates (with evaluations, logs and timed checkpoints) until the step or time budget is spent."""
    start = time.perf_counter()
    base_elapsed = trainer.elapsed
    last_ckpt = start
    evaluated_at = -1
    while trainer.global_step < cfg.total_timesteps and not stop.requested:
        if cfg.max_minutes and trainer.elapsed >= cfg.max_minutes * 60:
            break
        row = trainer.iterate()
        if cfg.eval_every and trainer.update % cfg.eval_every == 0:
            row.update(trainer.evaluate())
            evaluated_at = trainer.update
        trainer.elapsed = base_elapsed + time.perf_counter() - start
        row["wall_s"] = trainer.elapsed
        row["sps_overall"] = trainer.global_step / max(trainer.elapsed, 1e-9)
        log.write(row)
        if time.perf_counter() - last_ckpt >= cfg.checkpoint_minutes * 60:
            trainer.save("latest.pt")
            last_ckpt = time.perf_counter()
        if bar is not None:
            _show_progress(bar, trainer, row)
    if evaluated_at != trainer.update and cfg.eval_every and not stop.requested:
        row = {"update": trainer.update, "global_step": trainer.global_step, **trainer.evaluate()}
        trainer.elapsed = base_elapsed + time.perf_counter() - start
        row["wall_s"] = trainer.elapsed
        log.write(row)
    trainer.elapsed = base_elapsed + time.perf_counter() - start


def _show_progress(bar, trainer, row):
    bar.update(trainer.global_step - bar.n)
    post = {"sps": f"{row['sps']:.0f}", "ent": f"{row['entropy']:.2f}", "kl": f"{row['approx_kl']:.4f}",
            "tr_greedy": f"{row.get('train_win_greedy', float('nan')):.2f}"}
    for opp, r in trainer.last_eval.items():
        post[f"ev_{opp[:6]}"] = f"{r['win_rate']:.2f}"
    bar.set_postfix(post, refresh=False)
