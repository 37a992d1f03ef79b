"""The training loop's cadence, on a stand-in trainer and clock (no network is trained): timed
checkpoints every ``checkpoint_minutes`` of wall time (minutes, not seconds), the last update always
evaluated, the progress bar's end where ``max_minutes`` will stop the run at the rate so far, and a
tie with the best evaluation is not a new best."""

from types import SimpleNamespace

import pytest

from training import loop
from training.trainer import Trainer


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class FakeTrainer:
    """Each update takes ``seconds`` of the fake clock and ``steps`` decisions."""

    def __init__(self, clock, seconds, steps):
        self.clock, self.seconds, self.steps = clock, seconds, steps
        self.global_step, self.update, self.elapsed = 0, 0, 0.0
        self.saved, self.evaluated = [], []

    def iterate(self):
        self.clock.now += self.seconds
        self.global_step += self.steps
        self.update += 1
        return {}

    def evaluate(self):
        self.evaluated.append(self.update)
        return {}

    def save(self, name):
        self.saved.append((self.update, name))


class Log:
    def __init__(self):
        self.rows = []

    def write(self, row):
        self.rows.append(dict(row))


def _cfg(**over):
    base = dict(total_timesteps=50, max_minutes=0, eval_every=10, checkpoint_minutes=1.0)
    return SimpleNamespace(**{**base, **over})


def _run(monkeypatch, cfg, seconds=20.0, steps=10):
    clock = Clock()
    monkeypatch.setattr(loop.time, "perf_counter", clock)
    trainer, log = FakeTrainer(clock, seconds, steps), Log()
    loop._train_loop(trainer, cfg, log, None, SimpleNamespace(requested=False))
    return trainer, log


def test_timed_checkpoints_come_every_checkpoint_minutes(monkeypatch):
    trainer, log = _run(monkeypatch, _cfg(checkpoint_minutes=1.0), seconds=20.0)
    assert trainer.update == 5 and len(log.rows) == 5
    # 20 s per update: 60 s have passed after update 3; the last update's checkpoint is _run's, not the loop's
    assert trainer.saved == [(3, "latest.pt")]


def test_the_first_and_the_last_update_are_evaluated(monkeypatch):
    trainer, log = _run(monkeypatch, _cfg(eval_every=10))
    assert trainer.evaluated == [1, 5]
    assert [row["wall_s"] for row in log.rows] == pytest.approx([20.0, 40.0, 60.0, 80.0, 100.0])


def test_the_expected_end_is_where_max_minutes_stops_the_run():
    cfg = _cfg(total_timesteps=1000, max_minutes=1)
    trainer = SimpleNamespace(global_step=100, elapsed=30.0)  # 100 decisions in half the minute
    assert loop.expected_end(trainer, cfg) == 200
    roomy = _cfg(total_timesteps=1000, max_minutes=100)
    assert loop.expected_end(trainer, roomy) == 1000  # the decisions run out first
    assert loop.expected_end(trainer, _cfg(total_timesteps=1000, max_minutes=0)) == 1000


def test_a_tie_with_the_best_evaluation_is_not_a_new_best():
    saved = []
    fake = SimpleNamespace(
        net=SimpleNamespace(eval=lambda: None, train=lambda: None),
        evaluator=SimpleNamespace(evaluate=lambda net: {"greedy": {"win_rate": 0.6, "ci_low": 0.5, "ci_high": 0.7,
                                                                  "margin": 3.0}}),
        totals={"t_eval": 0.0}, last_eval={}, best=-1.0, cfg=SimpleNamespace(best_metric="greedy"),
        save=saved.append)
    first = Trainer.evaluate(fake)
    assert first.get("new_best") == 1 and saved == ["best.pt"] and fake.best == 0.6
    again = Trainer.evaluate(fake)  # the same win rate: the earlier network keeps best.pt
    assert "new_best" not in again and saved == ["best.pt"]
