"""``training.summary``'s numbers from a run's metrics (the module docstring): the first evaluation where the
win rate against ``--vs`` *reached* ``--reach``, the best and the last evaluation, and the default opponent
(greedy when the run was evaluated against it). The smoke test only checks that the summary prints; these
check what it says, on a hand-made metrics table whose answers are read off the table below."""

import argparse
import math

import pytest

from training.summary import _share, pick_opponent, summarize


def _metrics():
    """Four logged updates; greedy evaluated at updates 2..4 (0.5, 0.6, 0.7), champion at updates 2 and 4."""
    return {
        "update": [1, 2, 3, 4], "global_step": [100, 200, 300, 400], "wall_s": [60.0, 120.0, 180.0, 240.0],
        "sps": [10.0, 10.0, 10.0, 10.0],
        "t_env": [1.0] * 4, "t_inference": [1.0] * 4, "t_bookkeeping": [1.0] * 4, "t_update": [1.0] * 4,
        "t_eval": [0.0, 1.0, 1.0, 1.0],
        "eval_greedy_win": [None, 0.5, 0.6, 0.7], "eval_greedy_lo": [None, 0.4, 0.5, 0.6],
        "eval_greedy_hi": [None, 0.6, 0.7, 0.8],
        "eval_champion_win": [None, 0.1, None, 0.2], "eval_champion_lo": [None, 0.0, None, 0.1],
        "eval_champion_hi": [None, 0.2, None, 0.3],
    }


def test_a_win_rate_equal_to_reach_has_reached_it():
    """``--reach 0.6``: the evaluation at update 3 (0.6 exactly) is the first to reach it, not update 4 (0.7)."""
    s = summarize("run", reach=0.6, vs="greedy", metrics=_metrics())
    assert s["reached"] == {"decisions": 300, "wall_min": 3.0, "win": 0.6}
    assert summarize("run", reach=0.75, vs="greedy", metrics=_metrics())["reached"] is None


def test_best_and_last_evaluation():
    """Best: update 4 (0.7, interval [0.6, 0.8]); last: each opponent's value at the last evaluated update (4)."""
    s = summarize("run", reach=0.6, vs="greedy", metrics=_metrics())
    assert s["best_eval"] == {"update": 4, "win": 0.7, "ci": [0.6, 0.8]}
    assert s["last_eval"] == {"greedy": 0.7, "champion": 0.2}
    assert s["decisions"] == 400 and s["wall_min"] == 4.0 and not math.isnan(s["sps_overall"])


def test_the_default_opponent_is_greedy_when_the_run_was_evaluated_against_it(tmp_path):
    """No ``--vs``: greedy (the documented default) even when another opponent sorts before it."""
    metrics = _metrics()
    assert pick_opponent({str(tmp_path): metrics}) == "greedy"
    only_champion = {k: v for k, v in metrics.items() if "greedy" not in k}
    assert pick_opponent({str(tmp_path): only_champion}) == "champion"


def test_reach_accepts_its_whole_range():
    """"a share above 0 and at most 1": 1 (a 100% win rate) is allowed, 0 is not."""
    assert _share("1") == 1.0 and _share("0.001") == 0.001
    with pytest.raises(argparse.ArgumentTypeError, match="above 0 and at most 1"):
        _share("0")


def test_a_resume_that_changed_the_opponents_keeps_the_earlier_ones(tmp_path):
    """A run resumed with eval_opponents=[heuristic] after greedy and champion: the summary crashed on the
    opponents its last evaluation did not play (None), and --vs greedy was refused though metrics.csv holds
    greedy's evaluations (read from config.yaml alone); the plots dropped them."""
    metrics = _metrics()
    metrics.update({"eval_heuristic_win": [None, None, None, 0.4], "eval_heuristic_lo": [None, None, None, 0.3],
                    "eval_heuristic_hi": [None, None, None, 0.5]})
    metrics["eval_greedy_win"][3] = metrics["eval_champion_win"][3] = None
    (tmp_path / "config.yaml").write_text("eval_opponents: [heuristic]\n")
    assert pick_opponent({str(tmp_path): metrics}, "greedy") == "greedy"
    assert summarize(str(tmp_path), vs="heuristic", metrics=metrics)["last_eval"] == {"heuristic": 0.4}
    assert summarize(str(tmp_path), vs="greedy", metrics=metrics)["last_eval"] == {"greedy": 0.6}
