"""The benchmark's control variate (docs: Benchmark page): ``c`` fitted on one half of the deals corrects
the other half (cross-fitting), and the reference player gets no control variate against itself (its
per-deal result there is constant), with the scorecard saying why."""

import numpy as np
import pytest

from allfives_env.arena.benchmark import control_variate_estimate, run_benchmark


def test_each_half_is_corrected_with_the_slope_fitted_on_the_other_half():
    # even deals: y = 2x + 1 (slope 2); odd deals: y = 5 whatever x (slope 0)
    x = np.array([1.0, 3.0, -1.0, 1.0])
    y = np.array([3.0, 5.0, -1.0, 5.0])
    cv = control_variate_estimate(y, x, mu=0.0, mu_se=0.0)
    assert cv["slopes"] == pytest.approx([2.0, 0.0])
    # even deals corrected with the odd half's slope 0: [3, -1]; odd with the even half's 2: 5 - 2x = [-1, 3]
    assert cv["mean"] == pytest.approx(1.0)
    assert cv["se"] == pytest.approx(np.std([3.0, -1.0, -1.0, 3.0], ddof=1) / 2)


def test_no_control_variate_when_the_opponent_is_the_reference():
    card = run_benchmark("heuristic", 2, quick=True, opponents=["greedy"])
    (row,) = card["opponents"]
    assert row["opponent"] == "greedy"
    assert "control_variate" not in row["win_rate"] and "control_variate" not in row["margin"]
    assert row["no_control_variate"] == "the reference against itself is constant"
