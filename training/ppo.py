"""PPO self-play for All Fives: ``python -m training.ppo --config configs/ppo_2p.yaml [key=value ...]``.

Also ``allfives train ...`` (same arguments) and ``--resume RUN_DIR`` to continue
a run exactly from its ``latest.pt``. Each update:

1. :meth:`Collector.collect <training.rollout.Collector.collect>` steps
   ``num_envs`` games for ``num_steps`` steps (one batched forward pass per
   step for the learner, one for the snapshot opponent), building per-seat
   transition chains with GAE (the values from the policy's value head, or with
   ``critic=privileged`` from :class:`~training.critic.PrivilegedCritic`);
2. :func:`~training.update.ppo_update` runs the masked PPO update;
3. every ``snapshot_every`` updates the policy joins the snapshot pool; every
   ``eval_every`` updates :func:`~training.evaluate.evaluate_policy` plays the
   baselines on fixed duplicate deals; ``latest.pt`` is written every
   ``checkpoint_minutes`` and ``best.pt`` at the best evaluation.

The run folder holds ``config.yaml`` (the resolved config), ``metrics.csv``
(one row per update), TensorBoard events (``tb/``), the checkpoints and
``policy.pt`` (the final policy export). ``python -m training.plot RUN_DIR``
draws the learning curves.
"""

import argparse
import copy
import csv
import math
import os
import random
import signal
import sys
import threading
import time

import numpy as np
import torch
import yaml
from torch.optim.swa_utils import AveragedModel

from allfives_env.agents.ppo.features import action_blocks
from allfives_env.agents.ppo.network import PolicyNet

from .checkpoint import CheckpointError, export_policy, load_checkpoint, save_checkpoint
from .config import ConfigError, TrainConfig, field_docs, load_config, make_config, parse_override, to_dict
from .critic import PrivilegedCritic
from .evaluate import evaluate_policy
from .rollout import Collector
from .update import DistillLoss, ppo_update

BASE_COLUMNS = [
    "update", "global_step", "wall_s", "sps", "sps_overall", "learner_transitions", "carried",
    "t_env", "t_inference", "t_bookkeeping", "t_update", "t_eval", "lr",
    "pg_loss", "v_loss", "entropy", "approx_kl", "clipfrac", "explained_variance",
    "train_win_pool", "train_win_greedy", "train_win_random", "pool_size", "distill_ce",
]


def metric_columns(cfg: TrainConfig) -> list:
    cols = list(BASE_COLUMNS)
    for opp in cfg.eval_opponents:
        name = _col(opp)
        cols += [f"eval_{name}_win", f"eval_{name}_lo", f"eval_{name}_hi", f"eval_{name}_margin"]
    return cols


def _col(spec):
    return "".join(c if c.isalnum() else "_" for c in spec)


class MetricsLog:
    """metrics.csv (fixed columns) plus optional TensorBoard scalars."""

    def __init__(self, run_dir, cfg, resume_update=None):
        self.path = os.path.join(run_dir, "metrics.csv")
        self.columns = metric_columns(cfg)
        if resume_update is not None and os.path.exists(self.path):
            with open(self.path) as f:
                rows = [r for r in csv.DictReader(f) if int(r["update"]) <= resume_update]
        else:
            rows = []
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


def make_run_dir(cfg: TrainConfig) -> str:
    stamp = time.strftime("%Y%m%d-%H%M%S")
    run_dir = os.path.join(cfg.runs_dir, f"{cfg.run_name}_s{cfg.seed}_{stamp}")
    k = 1
    while os.path.exists(run_dir):
        k += 1
        run_dir = os.path.join(cfg.runs_dir, f"{cfg.run_name}_s{cfg.seed}_{stamp}_{k}")
    os.makedirs(run_dir)
    return run_dir


def save_config(cfg, run_dir):
    with open(os.path.join(run_dir, "config.yaml"), "w") as f:
        yaml.safe_dump(to_dict(cfg), f, sort_keys=False)


class Trainer:
    """The learner, its optimizer, the collector and the snapshot pool: one training run."""

    def __init__(self, cfg: TrainConfig, run_dir: str):
        if cfg.device.startswith("cuda") and not torch.cuda.is_available():
            raise ConfigError(f"device={cfg.device!r} but torch sees no CUDA device; use device=cpu")
        self.cfg, self.run_dir = cfg, run_dir
        self.device = torch.device(cfg.device)
        torch.set_num_threads(cfg.torch_threads)
        random.seed(cfg.seed)
        torch.manual_seed(cfg.seed)
        self.collector = Collector(cfg, cfg.device)
        self.rules = self.collector.config
        self.net = PolicyNet(self.collector.obs_dim, cfg.hidden_sizes, cfg.activation, action_width=cfg.action_width,
                             action_inputs=action_blocks(cfg.features, cfg.num_players),
                             action_depth=cfg.action_depth).to(self.device)
        if cfg.init_from:
            warm_start(self.net, cfg.init_from, self.rules, cfg.features)
        self.distill = _distill_loss(cfg, self.collector.obs_dim, self.device)
        self.opponent = copy.deepcopy(self.net)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.critic, self.critic_optimizer = None, None
        if cfg.critic == "privileged":
            self.critic = PrivilegedCritic(self.collector.obs_dim + self.collector.privileged_dim,
                                           cfg.critic_hidden_sizes, cfg.activation).to(self.device)
            self.critic_optimizer = torch.optim.Adam(self.critic.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 11]))
        # stochastic weight averaging: an equal-weight mean of the policy's iterates (exported at the end)
        self.average = AveragedModel(self.net) if cfg.average_from else None
        self.pool = [self._snapshot()]
        self.update = 0
        self.elapsed = 0.0  # wall seconds of training before this process (resume)
        self.best = -1.0
        self.last_eval = {}
        self.totals = {"t_env": 0.0, "t_inference": 0.0, "t_bookkeeping": 0.0, "t_update": 0.0, "t_eval": 0.0}

    def _snapshot(self):
        return {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}

    @property
    def global_step(self):
        return self.collector.env_steps

    # ----------------------------------------------------------- checkpoints
    def state(self) -> dict:
        optional = {} if self.critic is None else {"critic": self.critic.state_dict(),
                                                    "critic_optimizer": self.critic_optimizer.state_dict()}
        if self.average is not None:
            optional["average"] = self.average.state_dict()
        return {**optional, "collector": self.collector.state_dict(), "rng": self.rng.bit_generator.state,
                "torch_rng": torch.get_rng_state(), "python_rng": random.getstate(), "pool": self.pool,
                "elapsed": self.elapsed, "best": self.best, "last_eval": self.last_eval, "totals": self.totals}

    def save(self, name):
        save_checkpoint(os.path.join(self.run_dir, name), self.net, self.optimizer, self.rules, to_dict(self.cfg),
                        self.global_step, self.update, self.state(),
                        extra={"last_eval": self.last_eval, "best": self.best})

    def restore(self, path):
        ckpt = load_checkpoint(path, to_dict(self.cfg))
        self.net.load_state_dict(ckpt["policy"]["state_dict"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        st = ckpt["trainer"]
        if self.critic is not None:
            self.critic.load_state_dict(st["critic"])
            self.critic_optimizer.load_state_dict(st["critic_optimizer"])
        if self.average is not None and "average" in st:
            self.average.load_state_dict(st["average"])
        self.collector.load_state_dict(st["collector"])
        self.rng.bit_generator.state = st["rng"]
        torch.set_rng_state(st["torch_rng"])
        random.setstate(st["python_rng"])
        self.pool, self.elapsed, self.best = st["pool"], st["elapsed"], st["best"]
        self.last_eval, self.totals = st["last_eval"], st["totals"]
        self.update = ckpt["update"]

    # ----------------------------------------------------------- one update
    def iterate(self) -> dict:
        cfg = self.cfg
        lr = cfg.learning_rate
        if cfg.anneal_lr:
            lr *= max(0.0, 1.0 - self.global_step / cfg.total_timesteps)
        for opt in (self.optimizer, self.critic_optimizer):
            for group in (opt.param_groups if opt is not None else ()):
                group["lr"] = lr
        self.opponent.load_state_dict(self.pool[int(self.rng.integers(len(self.pool)))])
        self.collector.set_opponent(self.opponent)
        before = dict(self.collector.timing)
        t0 = time.perf_counter()
        self.net.eval()
        batch = self.collector.collect(self.net, self.critic)
        t1 = time.perf_counter()
        self.net.train()
        train_policy = self.update >= cfg.critic_warmup_updates
        stats = ppo_update(self.net, self.optimizer, batch, cfg, self.rng, self.device, self.distill,
                           self.critic, self.critic_optimizer, train_policy)
        t2 = time.perf_counter()
        self.update += 1
        if self._average_due():
            self.average.update_parameters(self.net)
        if self.update % cfg.snapshot_every == 0:
            self.pool.append(self._snapshot())
            self.pool = self.pool[-cfg.pool_size:]
        timing = self.collector.timing
        row = {f"t_{k}": timing[k] - before[k] for k in ("env", "inference", "bookkeeping")}
        row["t_update"] = t2 - t1
        for k in ("t_env", "t_inference", "t_bookkeeping", "t_update"):
            self.totals[k] += row[k]
        wins = self.collector.pop_results()
        row.update({
            "update": self.update, "global_step": self.global_step, "lr": lr,
            "sps": cfg.num_envs * cfg.num_steps / (t2 - t0), "learner_transitions": len(batch),
            "carried": self.collector.num_carry, "pool_size": len(self.pool),
            **{f"train_win_{k}": v[0] for k, v in wins.items()}, **stats,
        })
        return row

    def _average_due(self) -> bool:
        """Whether the weights after this update join the average: update average_from, then every average_every."""
        cfg = self.cfg
        return (self.average is not None and self.update >= cfg.average_from
                and (self.update - cfg.average_from) % cfg.average_every == 0)

    def export_average(self):
        """Write ``averaged_policy.pt`` (a ``ppo:PATH`` file) when weight averaging holds any snapshot."""
        if self.average is None or int(self.average.n_averaged) == 0:
            return
        export_policy(os.path.join(self.run_dir, "averaged_policy.pt"), self.average.module, self.rules,
                      extra={"global_step": self.global_step, "update": self.update,
                             "averaged_snapshots": int(self.average.n_averaged),
                             "average_from": self.cfg.average_from, "average_every": self.cfg.average_every},
                      features=self.cfg.features)

    def evaluate(self) -> dict:
        cfg = self.cfg
        t0 = time.perf_counter()
        res = evaluate_policy(self.net, self.rules, cfg.eval_opponents, cfg.eval_games, cfg.eval_seed,
                              self.run_dir, cfg.eval_workers, features=cfg.features)
        self.totals["t_eval"] += time.perf_counter() - t0
        self.last_eval = res
        row = {"t_eval": time.perf_counter() - t0}
        for opp, r in res.items():
            name = _col(opp)
            row.update({f"eval_{name}_win": r["win_rate"], f"eval_{name}_lo": r["ci_low"],
                        f"eval_{name}_hi": r["ci_high"], f"eval_{name}_margin": r["margin"]})
        score = res[cfg.best_metric]["win_rate"]
        if score > self.best:
            self.best = score
            self.save("best.pt")
            row["new_best"] = 1
        return row


def _distill_loss(cfg, obs_dim, device):
    """The expert-iteration loss over ``cfg.distill_data`` (None without it)."""
    if not cfg.distill_data or cfg.distill_coef == 0:
        return None
    from .distill_data import load_shards, teacher_targets

    d = load_shards(cfg.distill_data)
    if d["inputs"].shape[1] != obs_dim:
        raise ConfigError(f"distill_data holds inputs of size {d['inputs'].shape[1]}; this run's policy reads "
                          f"{obs_dim} (features={cfg.features!r}): label with a student of the same features")
    rows = ~d["holdout"]
    targets = teacher_targets(d["values"][rows], d["masks"][rows], 0.0, teacher_action=d["teacher_action"][rows])
    return DistillLoss(d["inputs"][rows], d["masks"][rows], targets, cfg.distill_coef, cfg.distill_batch, device)


def _bar(cfg, initial):
    if not cfg.progress:
        return None
    from tqdm import tqdm

    return tqdm(total=cfg.total_timesteps, initial=initial, unit="dec", unit_scale=True, dynamic_ncols=True,
                file=sys.stderr, mininterval=1.0)


def train(cfg: TrainConfig, run_dir=None, resume=False) -> dict:
    """Run (or, with ``resume``, continue) training in ``run_dir``; returns a summary dict."""
    run_dir = run_dir or make_run_dir(cfg)
    os.makedirs(run_dir, exist_ok=True)
    trainer = Trainer(cfg, run_dir)
    if resume:
        trainer.restore(os.path.join(run_dir, "latest.pt"))
    save_config(cfg, run_dir)
    log = MetricsLog(run_dir, cfg, resume_update=trainer.update if resume else None)
    bar = _bar(cfg, trainer.global_step)
    stop = _StopRequest()
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
        trainer.export_average()
    finally:
        stop.restore(previous)
        if bar is not None:
            bar.close()
        log.close()
    totals = trainer.totals
    busy = sum(totals.values())
    summary = {"run_dir": run_dir, "updates": trainer.update, "global_step": trainer.global_step,
               "wall_s": trainer.elapsed, "sps_overall": trainer.global_step / max(trainer.elapsed, 1e-9),
               "time_split": {k: v / busy for k, v in totals.items()} if busy else {},
               "last_eval": trainer.last_eval, "best": trainer.best}
    return summary


class _StopRequest:
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


def _train_loop(trainer, cfg, log, bar, stop=None):
    """Updates (with evaluations, logs and timed checkpoints) until the step or time budget is spent."""
    start = time.perf_counter()
    base_elapsed = trainer.elapsed
    last_ckpt = start
    evaluated_at = -1
    while trainer.global_step < cfg.total_timesteps:
        if cfg.max_minutes and trainer.elapsed >= cfg.max_minutes * 60:
            break
        if stop is not None and stop.requested:
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
            bar.update(trainer.global_step - bar.n)
            post = {"sps": f"{row['sps']:.0f}", "ent": f"{row['entropy']:.2f}", "kl": f"{row['approx_kl']:.4f}",
                    "tr_greedy": f"{row.get('train_win_greedy', float('nan')):.2f}"}
            for opp, r in trainer.last_eval.items():
                post[f"ev_{opp[:6]}"] = f"{r['win_rate']:.2f}"
            bar.set_postfix(post, refresh=False)
    if evaluated_at != trainer.update and cfg.eval_every and not (stop is not None and stop.requested):
        row = {"update": trainer.update, "global_step": trainer.global_step, **trainer.evaluate()}
        trainer.elapsed = base_elapsed + time.perf_counter() - start
        row["wall_s"] = trainer.elapsed
        log.write(row)
    trainer.elapsed = base_elapsed + time.perf_counter() - start


def warm_start(net, path, rules, features):
    """Load the policy file ``path`` into ``net`` (for ``init_from``), function-preserving.

    ``net`` may be *wider* than the file's network: the same number of trunk
    layers, each at least as wide, an action scorer at least as wide and as
    deep (or a new one; a second scorer layer added to a one-layer file
    starts with its output at zero), and it may read more inputs (new
    derived features). The old weights fill each matrix's top-left block;
    every weight *out of* a new unit or new input is zero, so the network starts out
    computing exactly the file's policy and value; weights *into* new units
    keep their fresh random start, so the new units learn as soon as the
    zero weights move (as in Net2Net's widening). (A widened scorer's tile
    and slot embeddings hold one column per unit: the new units' columns
    start at zero, like every column beyond the file's block; their context
    and feature weights in are random.)"""
    from allfives_env.agents.ppo.agent import build_policy, policy_features, read_checkpoint
    from allfives_env.agents.ppo.features import extends

    policy = read_checkpoint(path)["policy"]
    if policy["num_players"] != rules.num_players:
        raise CheckpointError(f"init_from {path!r} is a {policy['num_players']}-player policy; "
                              f"this run has {rules.num_players} players")
    source = build_policy(policy, path)
    old_widths, new_widths = list(source.hidden_sizes), list(net.hidden_sizes)
    if (len(old_widths) != len(new_widths) or any(n < o for o, n in zip(old_widths, new_widths))
            or source.activation != net.activation or source.skip != net.skip):
        raise CheckpointError(f"init_from {path!r} has hidden_sizes {old_widths} ({source.activation}); this run has "
                              f"{new_widths} ({net.activation}): it needs as many layers, each at least as wide, "
                              f"and the same activation and skip path")
    for size, at_least in (("width", "wide"), ("depth", "deep")):
        old, new = getattr(source, f"action_{size}"), getattr(net, f"action_{size}")
        if old > new:
            raise CheckpointError(f"init_from {path!r} has an action scorer of {size} {old}; this run has "
                                  f"action_{size}={new}: it needs a scorer at least as {at_least}")
    old_features = policy_features(policy, path)
    if not extends(features, old_features) or source.obs_dim > net.obs_dim:
        raise CheckpointError(f"init_from {path!r} was trained on features={old_features!r}; this run uses "
                              f"features={features!r}")
    state = net.state_dict()
    with torch.no_grad():
        for name, value in source.state_dict().items():
            target = state[name]
            rows = value.shape[0]
            if value.dim() == 2:  # old units' rows: old weights, zero from new inputs / new units
                target[:rows].zero_()
                target[:rows, :value.shape[1]].copy_(value)
            else:
                target[:rows].copy_(value)
    net.load_state_dict(state)


# ----------------------------------------------------------------- command line
def build_parser(prog="python -m training.ppo"):
    docs = field_docs()
    epilog = "config keys (override with key=value):\n" + "\n".join(f"  {k}: {v}" for k, v in docs.items())
    p = argparse.ArgumentParser(prog=prog, description="PPO self-play training for All Fives",
                                epilog=epilog, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(p)
    return p


def add_arguments(p):
    p.add_argument("--config", metavar="YAML", help="config file (configs/ppo_2p.yaml, ...)")
    p.add_argument("--resume", metavar="RUN_DIR", help="continue the run in RUN_DIR from its latest.pt")
    p.add_argument("--run-dir", metavar="DIR", help="write the run here instead of runs/<name>_s<seed>_<time>")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides")


def run(args) -> int:
    """Run from parsed arguments (shared by ``python -m training.ppo`` and ``allfives train``)."""
    if args.resume:
        path = os.path.join(args.resume, "config.yaml")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{args.resume!r} is not a run folder (no config.yaml)")
        with open(path) as f:
            values = yaml.safe_load(f) or {}
        if args.config:
            raise ConfigError("give either --resume RUN_DIR or --config, not both (the run keeps its own config)")
        for text in args.overrides:
            key, value = parse_override(text)
            values[key] = value
        cfg = make_config(values)
        summary = train(cfg, args.resume, resume=True)
    else:
        cfg = load_config(args.config, args.overrides)
        summary = train(cfg, args.run_dir)
    print(yaml.safe_dump(summary, sort_keys=False, default_flow_style=None))
    return 0


def main(argv=None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return run(args)
    except (ConfigError, CheckpointError, FileNotFoundError) as exc:
        sys.stderr.write(f"training.ppo: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
