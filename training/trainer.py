"""One training run's state: the learner, its optimizer, the collector, the snapshot pool and the evaluator."""

import copy
import os
import time

import numpy as np
import torch

from allfives_env.agents.ppo.features import action_blocks
from allfives_env.agents.ppo.network import PolicyNet
from allfives_env.rules.config import is_int

from .checkpoint import CheckpointError, load_checkpoint, save_checkpoint
from .config import MAX_THREADS, ConfigError, TrainConfig, defaults, to_dict
from .evaluate import Evaluator
from .metrics import column_name
from .rollout import Collector
from .update import ppo_update
from .warm_start import warm_start


class Trainer:
    """One PPO update at a time (:meth:`iterate`), evaluations (:meth:`evaluate`) and checkpoints."""

    def __init__(self, cfg: TrainConfig, run_dir: str, resume: bool = False):
        if cfg.device.startswith("cuda") and not torch.cuda.is_available():
            raise ConfigError(f"device={cfg.device!r} but torch sees no CUDA device; use device=cpu")
        self.cfg, self.run_dir = cfg, run_dir
        self.device = torch.device(cfg.device)
        self.torch_threads = cfg.torch_threads or free_cores()
        #: where the thread count came from: "config", "measured" (free cores now) or "checkpoint" (resume)
        self.threads_source = "config" if cfg.torch_threads else "measured"
        torch.set_num_threads(self.torch_threads)
        self.collector = Collector(cfg, cfg.device)
        self.rules = self.collector.config
        self.net = self._initial_network().to(self.device)
        if cfg.init_from and not resume:  # a resumed run's weights come from latest.pt (restore)
            warm_start(self.net, cfg.init_from, self.rules, cfg.features)
        self.opponent = copy.deepcopy(self.net)
        self.optimizer = torch.optim.Adam(self.net.parameters(), lr=cfg.learning_rate, eps=1e-5)
        self.evaluator = Evaluator(self.rules, cfg.features, cfg.eval_opponents, cfg.eval_games, cfg.eval_seed,
                                   cfg.eval_workers)
        self.rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 11]))
        self.pool = [self._snapshot()]
        self.update = 0
        self.elapsed = 0.0  # wall seconds of training before this process (resume)
        self.best = -1.0
        self.last_eval = {}
        self.totals = {"t_env": 0.0, "t_inference": 0.0, "t_bookkeeping": 0.0, "t_update": 0.0, "t_eval": 0.0}

    def _initial_network(self) -> PolicyNet:
        """The network's random start, drawn from ``cfg.seed`` alone. Torch draws it from its global
        generator, so it is drawn under a fork of that generator: a run leaves the process's torch
        random state as it found it, and nothing else in training draws from it (the games and the
        minibatches draw from numpy Generators kept in the checkpoint)."""
        cfg = self.cfg
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(cfg.seed)
            return PolicyNet(self.collector.obs_dim, cfg.hidden_sizes, cfg.activation, action_width=cfg.action_width,
                             action_inputs=action_blocks(cfg.features, cfg.num_players),
                             action_depth=cfg.action_depth)

    def _snapshot(self):
        return {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}

    @property
    def global_step(self):
        return self.collector.env_steps

    # ----------------------------------------------------------- checkpoints
    def state(self) -> dict:
        """Everything beyond the network and the optimizer that exact resumption needs."""
        return {"collector": self.collector.state_dict(), "rng": self.rng.bit_generator.state, "pool": self.pool,
                "elapsed": self.elapsed, "best": self.best, "last_eval": self.last_eval, "totals": self.totals,
                "torch_threads": self.torch_threads}

    def save(self, name):
        save_checkpoint(os.path.join(self.run_dir, name), self.net, self.optimizer, self.rules, to_dict(self.cfg),
                        self.global_step, self.update, self.state(),
                        extra={"last_eval": self.last_eval, "best": self.best})

    def restore(self, path):
        ckpt = load_checkpoint(path, to_dict(self.cfg))
        self.net.load_state_dict(ckpt["policy"]["state_dict"])
        self.optimizer.load_state_dict(ckpt["optimizer"])
        st = ckpt["trainer"]
        self.collector.load_state_dict(st["collector"])
        self.rng.bit_generator.state = st["rng"]  # (files before 2026-12-07 also hold an unused "torch_rng")
        self.pool, self.elapsed, self.best = st["pool"], st["elapsed"], st["best"]
        if {**defaults(), **ckpt["config"]}["best_metric"] != self.cfg.best_metric:  # as load_checkpoint fills keys
            self.best = -1.0  # a best against another opponent: the next evaluation against this one writes best.pt
        self.last_eval, self.totals = st["last_eval"], st["totals"]
        self.update = ckpt["update"]
        if not self.cfg.torch_threads and st.get("torch_threads"):
            # a resumed run keeps the thread count it started with: torch's sums depend on it, so a count
            # measured again on a busier or idler machine would break exact resumption
            self.torch_threads = _stored_threads(st["torch_threads"], path)
            self.threads_source = "checkpoint"
            torch.set_num_threads(self.torch_threads)

    # ----------------------------------------------------------- one update
    def learning_rate(self) -> float:
        cfg = self.cfg
        if not cfg.anneal_lr:
            return cfg.learning_rate
        return cfg.learning_rate * max(0.0, 1.0 - self.budget_used())

    def budget_used(self) -> float:
        """The share of the run's budget spent: of ``total_timesteps``, or of ``max_minutes`` when
        that is nearer its end (so the learning rate reaches zero on a slow or busy machine too)."""
        cfg = self.cfg
        used = self.global_step / cfg.total_timesteps
        if cfg.max_minutes:
            used = max(used, self.elapsed / (cfg.max_minutes * 60))
        return used

    def iterate(self) -> dict:
        """Collect one rollout against a snapshot drawn from the pool, update, return the metrics row."""
        cfg = self.cfg
        lr = self.learning_rate()
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.opponent.load_state_dict(self.pool[int(self.rng.integers(len(self.pool)))])
        self.collector.set_opponent(self.opponent)
        before = dict(self.collector.timing)
        t0 = time.perf_counter()
        self.net.eval()
        batch = self.collector.collect(self.net)
        t1 = time.perf_counter()
        self.net.train()
        stats = ppo_update(self.net, self.optimizer, batch, cfg, self.rng, self.device)
        t2 = time.perf_counter()
        self.update += 1
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

    def evaluate(self) -> dict:
        """Play the live network against each evaluation opponent; a new best writes ``best.pt``."""
        t0 = time.perf_counter()
        self.net.eval()
        res = self.evaluator.evaluate(self.net)
        self.net.train()
        seconds = time.perf_counter() - t0
        self.totals["t_eval"] += seconds
        self.last_eval = res
        row = {"t_eval": seconds}
        for opp, r in res.items():
            name = column_name(opp)
            row.update({f"eval_{name}_win": r["win_rate"], f"eval_{name}_lo": r["ci_low"],
                        f"eval_{name}_hi": r["ci_high"], f"eval_{name}_margin": r["margin"]})
        score = res[self.cfg.best_metric]["win_rate"]
        if score > self.best:
            self.best = score
            self.save("best.pt")
            row["new_best"] = 1
        return row


def _stored_threads(threads, path) -> int:
    """The thread count a checkpoint's trainer state holds, checked as the config's ``torch_threads`` is: a count
    far beyond any machine's cores (a file made by hand) would make torch crash."""
    if not is_int(threads) or not 1 <= threads <= MAX_THREADS:
        raise CheckpointError(f"{path!r}: its trainer state holds torch_threads={threads!r}; allowed: a positive "
                              f"integer up to {MAX_THREADS} (or resume with torch_threads=N)")
    return int(threads)


def free_cores(window_s: float = 0.5) -> int:
    """The cores this process may use that other processes are not keeping busy, at least 1: on a
    busy machine, more torch threads than free cores is far slower. Busy is measured now, over
    ``window_s`` seconds of the kernel's CPU counters (the 1-minute load average lags: right after
    ``scripts/setup.sh`` it still counts the install); the load average where those are missing."""
    cores = available_cores()
    busy = busy_cores_now(window_s)
    if busy is None:
        busy = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    return max(1, min(cores, int(cores - busy + 0.5)))


def available_cores() -> int:
    """The cores this process may run on (its affinity where the system has one)."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def busy_cores_now(window_s: float):
    """How many of the machine's cores were busy over the next ``window_s`` seconds (from
    ``/proc/stat``), or None where the counters cannot be read."""
    first = _cpu_counters()
    if first is None:
        return None
    time.sleep(window_s)
    second = _cpu_counters()
    if second is None:
        return None
    (busy0, total0, ncpu), (busy1, total1, _) = first, second
    if total1 <= total0:
        return None
    return ncpu * (busy1 - busy0) / (total1 - total0)


def _cpu_counters():
    """``(busy ticks, total ticks, number of cpus)`` summed over all cpus, or None."""
    try:
        with open("/proc/stat") as stat:
            lines = stat.read().splitlines()
    except OSError:
        return None
    ncpu = sum(1 for line in lines if line.startswith("cpu") and line[3:4].isdigit())
    fields = lines[0].split() if lines else []
    if not fields or fields[0] != "cpu" or ncpu == 0:
        return None
    ticks = [int(v) for v in fields[1:]]
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
    # guest time is already counted in user time
    total = sum(ticks[:8])
    return total - idle, total, ncpu
