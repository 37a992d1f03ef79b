"""The learning rate anneals over the run's budget, decisions or minutes, whichever runs out first."""

import pytest

from training.config import load_config
from training.trainer import Trainer


def _trainer(tmp_path, *overrides):
    cfg = load_config("configs/smoke.yaml", ["total_timesteps=1000", "learning_rate=0.001", "eval_every=0",
                                             "tensorboard=false", "torch_threads=1", *overrides])
    return Trainer(cfg, str(tmp_path / "run"))


@pytest.mark.parametrize("step, elapsed, expected", [(0, 0.0, 0.001), (250, 0.0, 0.00075), (250, 300.0, 0.0005),
                                                     (900, 300.0, 0.0001), (100, 700.0, 0.0)])
def test_the_learning_rate_follows_the_budget_nearer_its_end(tmp_path, step, elapsed, expected):
    trainer = _trainer(tmp_path, "max_minutes=10")
    trainer.collector.env_steps, trainer.elapsed = step, elapsed
    assert trainer.learning_rate() == pytest.approx(expected)


def test_without_a_time_limit_only_decisions_count(tmp_path):
    trainer = _trainer(tmp_path, "max_minutes=0")
    trainer.collector.env_steps, trainer.elapsed = 250, 1e6
    assert trainer.learning_rate() == pytest.approx(0.00075)


def test_without_annealing_the_rate_is_constant(tmp_path):
    trainer = _trainer(tmp_path, "max_minutes=10", "anneal_lr=false")
    trainer.collector.env_steps, trainer.elapsed = 900, 590.0
    assert trainer.learning_rate() == 0.001
