"""``python -m training.plot``'s reading of run folders: ``--chain`` keeps each phase up to the update
its ``latest.pt`` holds (what the next phase started from, inclusive) and shifts a restarted phase's
decisions by the decisions and its wall time by the wall time before it; the evaluation opponents of a
folder without config.yaml are read off its metrics.csv columns."""

import csv
import os

from training import checkpoint, plot


def _metrics(folder, rows, extra=()):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "metrics.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["update", "global_step", "wall_s", *extra])
        writer.writeheader()
        for row in rows:
            writer.writerow(row)


def test_chain_keeps_each_phase_to_its_checkpoint_and_offsets_steps_and_time(tmp_path, monkeypatch):
    first, second = str(tmp_path / "phase_a"), str(tmp_path / "phase_b")
    _metrics(first, [{"update": u, "global_step": 100 * u, "wall_s": 10 * u} for u in (1, 2, 3, 4)])
    _metrics(second, [{"update": u, "global_step": 100 * u, "wall_s": 10 * u} for u in (1, 2)])
    # phase a's latest.pt was taken at update 3: update 4 is not what phase b started from
    monkeypatch.setattr(checkpoint, "load_checkpoint", lambda path: {"update": 3})
    joined, starts = plot.chain_metrics([first, second])
    # what the plots draw: each value against the decisions and minutes of its own row
    assert plot._series(joined, "global_step", "wall_s") == ([100, 200, 300, 400, 500], [10, 20, 30, 40, 50])
    assert starts == [("phase_a", 0.0, 0.0), ("phase_b", 300, 30)]


def test_chained_rows_stay_aligned_and_a_column_new_in_a_later_phase_is_kept(tmp_path, monkeypatch):
    """Every column of the joined metrics is one row per logged update, in order: ``update``, the
    decisions and an evaluation column line up as in their phases, and an opponent evaluated only from
    the second phase on is None before it and keeps its values (the plots drop rows without a step)."""
    first, second = str(tmp_path / "phase_a"), str(tmp_path / "phase_b")
    _metrics(first, [{"update": u, "global_step": 100 * u, "wall_s": 10 * u, "eval_greedy_win": 0.1 * u}
                     for u in (1, 2, 3, 4)], extra=["eval_greedy_win"])
    _metrics(second, [{"update": u, "global_step": 100 * u, "wall_s": 10 * u, "eval_greedy_win": 0.1 * u,
                       "eval_random_win": 0.5 + 0.1 * u} for u in (4, 5)], extra=["eval_greedy_win", "eval_random_win"])
    monkeypatch.setattr(checkpoint, "load_checkpoint", lambda path: {"update": 3})  # phase b resumed at 3
    joined, _ = plot.chain_metrics([first, second])
    assert joined["update"] == [1, 2, 3, 4, 5]
    assert joined["global_step"] == [100, 200, 300, 400, 500]
    assert joined["eval_greedy_win"] == [0.1 * u for u in (1, 2, 3, 4, 5)]
    assert joined["eval_random_win"] == [None, None, None, 0.9, 1.0]


def test_opponents_come_from_the_metrics_columns_without_a_config(tmp_path):
    folder = str(tmp_path / "run")
    cols = ["eval_greedy_win", "eval_greedy_lo", "eval_greedy_hi", "eval_random_win"]
    _metrics(folder, [{"update": 1, "global_step": 10, "wall_s": 1.0, **{c: 0.5 for c in cols}}], extra=cols)
    metrics = plot.read_metrics(folder)
    assert plot.eval_opponents(folder, metrics) == ["greedy", "random"]
