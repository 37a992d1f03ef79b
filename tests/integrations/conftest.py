"""Fixtures for the integration tests."""

import pytest


@pytest.fixture(autouse=True)
def sb3_logs_in_tmp_path(monkeypatch, tmp_path):
    """Stable-Baselines3's learn() makes a log folder, by default a new ``SB3-<time>`` in the system's
    temporary folder that nobody removes; put it in the test's own ``tmp_path`` instead."""
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3_logs"))
