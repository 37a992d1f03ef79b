"""Run folders that are not as a run left them: ``--resume``, ``training.plot`` and ``training.summary`` refuse
them in one line, before they write anything, and a bad option of theirs is one line too."""

import csv
import os

import pytest
import yaml

from training.cli import main as train_main
from training.config import load_config, to_dict
from training.metrics import metric_columns
from training.plot import main as plot_main
from training.summary import main as summary_main

FAST = ["eval_every=0", "torch_threads=1", "tensorboard=false", "checkpoint_minutes=0", "progress=false"]


def _logged_run(folder, **config):
    """A run folder as a finished run leaves its config.yaml and metrics.csv (two updates, evaluated against
    random and greedy), without training."""
    cfg = load_config("configs/smoke.yaml", [f"{k}={v}" for k, v in config.items()])
    os.makedirs(folder)
    with open(os.path.join(folder, "config.yaml"), "w") as f:
        yaml.safe_dump(to_dict(cfg), f, sort_keys=False)
    with open(os.path.join(folder, "metrics.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, metric_columns(cfg), restval="0.5")
        writer.writeheader()
        for update in (1, 2):
            writer.writerow({"update": update, "global_step": 1024 * update, "wall_s": 2.0 * update})
    return str(folder)


def _contents(folder) -> dict:
    return {name: open(os.path.join(folder, name), "rb").read() for name in sorted(os.listdir(folder))
            if os.path.isfile(os.path.join(folder, name))}


def _status(main, args):
    try:
        return main([str(a) for a in args])
    except SystemExit as exc:  # the parser's refusals
        return exc.code


def _refused(main, args, capsys, *words):
    assert _status(main, args) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, err
    for word in words:
        assert word in err, err


def test_plot_refuses_an_out_that_is_a_file_and_keeps_it(tmp_path, capsys):
    run = _logged_run(tmp_path / "run")
    before = _contents(run)
    _refused(plot_main, [run, "--out", f"{run}/config.yaml"], capsys,  # was a FileExistsError traceback
             f"--out {run}/config.yaml is a file, not a folder; allowed: a folder")
    (tmp_path / "run" / "plots").write_text("a file where RUN/plots goes")
    _refused(plot_main, [run], capsys, f"the plots folder {run}/plots is a file, not a folder")
    assert _contents(run) == {**before, "plots": b"a file where RUN/plots goes"}


@pytest.mark.parametrize("text, words", [
    ("- x\n", "config.yaml: a config file must be a mapping of keys to values"),  # was an AttributeError traceback
    ("eval_opponents: 5\n", "config.yaml: eval_opponents is 5; allowed: a list of agent specs"),
    ("seed: [1\n", "config.yaml: not valid YAML"),
])
def test_plot_and_summary_refuse_a_config_that_is_not_one_and_create_nothing(tmp_path, capsys, text, words):
    run = _logged_run(tmp_path / "run")
    (tmp_path / "run" / "config.yaml").write_text(text)
    before = _contents(run)
    _refused(plot_main, [run], capsys, words)
    _refused(summary_main, [run], capsys, words)
    assert not os.path.exists(f"{run}/plots") and _contents(run) == before  # plots/ was made before the failure


def test_plot_and_summary_refuse_metrics_without_the_columns_they_read(tmp_path, capsys):
    run = _logged_run(tmp_path / "run")
    (tmp_path / "run" / "metrics.csv").write_text("global_step,wall_s\n1024,2.0\n")
    _refused(plot_main, [run], capsys, "metrics.csv has no column update")
    _refused(summary_main, [run], capsys, "metrics.csv has no column update")  # was a KeyError traceback
    assert not os.path.exists(f"{run}/plots")


@pytest.mark.parametrize("args, words", [
    (["--reach", "nan"], "argument --reach: nan is not allowed; allowed: a share above 0 and at most 1"),  # "nan%"
    (["--reach", "2"], "argument --reach: 2 is not allowed; allowed: a share above 0 and at most 1"),  # was "200%"
    (["--reach", "0"], "argument --reach: 0 is not allowed"),
    (["--vs", "nosuch"], "--vs nosuch: '{run}' was not evaluated against it; allowed: random, greedy"),  # accepted
])
def test_summary_refuses_a_share_or_an_opponent_it_cannot_report(tmp_path, capsys, args, words):
    run = _logged_run(tmp_path / "run")
    _refused(summary_main, [run, *args], capsys, words.format(run=run))


def test_summary_reports_against_an_opponent_the_run_was_evaluated_against(tmp_path, capsys):
    run = _logged_run(tmp_path / "run")
    assert summary_main([run, "--vs", "random", "--reach", "1"]) == 0
    assert "reached 100% vs random: not reached" in capsys.readouterr().out
    other = _logged_run(tmp_path / "other", eval_opponents="[heuristic]", best_metric="heuristic")
    assert summary_main([other]) == 0  # not evaluated against greedy: its own opponent
    assert "best vs heuristic: 0.500" in capsys.readouterr().out
    _refused(summary_main, [run, other], capsys, f"--vs greedy: '{other}' was not evaluated against it; allowed: "
                                                 "heuristic")


@pytest.fixture
def run(tmp_path):
    folder = str(tmp_path / "run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", folder, *FAST, "total_timesteps=1024",
                       "eval_opponents=[greedy]", "best_metric=greedy"]) == 0
    return folder


@pytest.mark.parametrize("metrics, words", [
    ("global_step,wall_s\n1024,2.0\n", "metrics.csv has no 'update' column"),  # was a KeyError traceback
    ("update,global_step\none,1024\n", "metrics.csv line 2: the update 'one' is not a whole number"),
    ("update,global_step\n1,1024,7\n", "metrics.csv line 2 has more values than its header"),
])
def test_a_resume_refuses_metrics_it_cannot_continue_and_changes_nothing(run, capsys, metrics, words):
    with open(os.path.join(run, "metrics.csv"), "w") as f:
        f.write(metrics)
    before = _contents(run)
    _refused(train_main, ["--resume", run, "total_timesteps=2200"], capsys, words,
             "allowed: the metrics.csv the run wrote")
    assert _contents(run) == before  # config.yaml was rewritten before the failure


def test_a_resume_evaluating_other_opponents_keeps_the_columns_logged_before(run, capsys):
    """An allowed override of the opponents: the new columns are added, the old ones kept (was a ValueError after
    metrics.csv had been cut to its header)."""
    assert train_main(["--resume", run, "total_timesteps=2048", "eval_every=1", "eval_games=2",
                       "eval_opponents=[random]", "best_metric=random"]) == 0, capsys.readouterr().err
    rows = list(csv.DictReader(open(os.path.join(run, "metrics.csv"))))
    assert [row["update"] for row in rows] == ["1", "2"]
    assert rows[0]["eval_greedy_win"] == "" and rows[1]["eval_random_win"] != ""  # eval_every=0 before
    assert list(rows[0])[-8:] == [f"eval_{opp}_{part}" for opp in ("random", "greedy")
                                  for part in ("win", "lo", "hi", "margin")]


def test_a_resume_refuses_a_stored_thread_count_beyond_the_cap(tmp_path, monkeypatch, capsys):
    """A run that chose its thread count resumes with the count its latest.pt holds: a hand-made 100000 is refused
    (torch.set_num_threads is guarded here, as 100000 threads was a segmentation fault)."""
    import torch

    from allfives_env.agents.ppo.policy_file import with_digest
    from training import trainer

    def guarded(n, set_threads=torch.set_num_threads):
        assert n <= 256, f"torch.set_num_threads({n})"
        set_threads(n)

    monkeypatch.setattr(torch, "set_num_threads", guarded)
    monkeypatch.setattr(trainer, "free_cores", lambda: 1)
    run = str(tmp_path / "run")
    unpinned = [option for option in FAST if not option.startswith("torch_threads")]
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *unpinned, "total_timesteps=1024"]) == 0
    ckpt = torch.load(f"{run}/latest.pt", weights_only=True)
    del ckpt["sha256"]
    ckpt["trainer"]["torch_threads"] = 100000
    torch.save(with_digest(ckpt), f"{run}/latest.pt")
    before = _contents(run)
    capsys.readouterr()
    _refused(train_main, ["--resume", run, "total_timesteps=2048"], capsys,
             "latest.pt': its trainer state holds torch_threads=100000; allowed: a positive integer up to 256")
    assert _contents(run) == before


def test_summary_of_a_run_never_evaluated_says_so(tmp_path, capsys):
    """It said 'reached 60% vs greedy: not reached' of a run with eval_every=0."""
    run = _logged_run(tmp_path / "run")
    with open(os.path.join(run, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    with open(os.path.join(run, "metrics.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, list(rows[0]))
        writer.writeheader()
        writer.writerows({k: ("" if k.startswith("eval_") else v) for k, v in row.items()} for row in rows)
    assert summary_main([run]) == 0
    out = capsys.readouterr().out
    assert "no evaluation against greedy" in out and "reached" not in out
