"""The training config: typed fields, YAML files and key=value overrides; errors name the key."""

import glob
import io
import os
import re
import time
from pathlib import Path

import pytest

import training.rollout as rollout
from training.cli import main
from training.config import ConfigError, TrainConfig, field_docs, load_config, make_config, parse_override

ROOT = Path(__file__).resolve().parents[2]


def test_every_field_is_documented():
    docs = field_docs()
    assert set(docs) == set(TrainConfig.__dataclass_fields__)
    assert all(text.strip() for text in docs.values())


@pytest.mark.parametrize("path", sorted(glob.glob("configs/*.yaml")))
def test_shipped_configs_load(path):
    cfg = load_config(path)
    assert cfg.num_players in (2, 3, 4)


def test_a_shipped_config_is_found_from_any_directory_and_one_in_the_working_directory_comes_first(
        tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert load_config("configs/ppo_3p.yaml").num_players == 3  # the checkout's, extending its base.yaml
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "ppo_3p.yaml").write_text("num_players: 4\n")
    assert load_config("configs/ppo_3p.yaml").num_players == 4
    with pytest.raises(ConfigError, match="config file not found: configs/nope.yaml"):
        load_config("configs/nope.yaml")
    (tmp_path / "configs" / "mine.yaml").write_text("extends: base.yaml\n")  # beside it, never the shipped one
    with pytest.raises(ConfigError, match="config file not found: configs/base.yaml"):
        load_config("configs/mine.yaml")


def test_the_documented_file_of_your_own_extends_a_shipped_config_through_the_link(tmp_path, monkeypatch):
    """docs/training.md: my_4p.yaml at the checkout's root, ``extends: configs/ppo_4p.yaml``."""
    (tmp_path / "configs").symlink_to(ROOT / "training" / "configs")
    (tmp_path / "my_4p.yaml").write_text("extends: configs/ppo_4p.yaml\nrun_name: my_4p\nhidden_sizes: [256, 256]\n")
    monkeypatch.chdir(tmp_path)
    cfg = load_config("my_4p.yaml")
    assert cfg.num_players == 4 and cfg.run_name == "my_4p" and cfg.hidden_sizes == [256, 256]


def test_overrides_are_typed():
    cfg = load_config("configs/smoke.yaml", ["learning_rate=1e-3", "hidden_sizes=[32, 16]", "target=null",
                                              "anneal_lr=false", "eval_opponents=[random]", "best_metric=random"])
    assert cfg.learning_rate == 1e-3 and cfg.hidden_sizes == [32, 16] and cfg.target is None
    assert cfg.anneal_lr is False and cfg.eval_opponents == ["random"]
    assert make_config({"learning_rate": 1}).learning_rate == 1.0  # an int is a fine float


@pytest.mark.parametrize("override, words", [
    ("num_player=3", ["num_player", "num_players"]),
    ("seed=abc", ["seed", "integer"]),
    ("learning_rate=fast", ["learning_rate", "number"]),
    ("anneal_lr=1", ["anneal_lr", "true or false"]),
    ("hidden_sizes=128", ["hidden_sizes", "list"]),
    ("hidden_sizes=[128, x]", ["hidden_sizes[1]", "integer"]),
    ("num_players=5", ["num_players", "2, 3 or 4"]),
    ("best_metric=search", ["best_metric"]),
    ("novalue", ["key=value"]),
    ("eval_seed=-1", ["eval_seed", "a whole number from 0 to 2**64 - 1"]),  # was refused by the first evaluation
    ("seed=18446744073709551616", ["seed", "from 0 to 2**64 - 1"]),  # was torch's "Overflow when unpacking long long"
    ("update_epochs=100000", ["update_epochs", "from 1 to 1,000"]),  # its first update never ended, nor stopped
    ("clip_coef=1e300", ["clip_coef", "a positive number up to 1,000"]),  # was an overflow traceback mid-run
    ("ent_coef=1e300", ["ent_coef", "from 0 to 1,000"]),  # NaN weights, then "action 0 is not legal"
    ("vf_coef=1e300", ["vf_coef", "from 0 to 1,000"]),
    ("reward_points=1e300", ["reward_points", "from 0 to 1,000"]),
    ("eval_opponents=[greedy, greedy]", ["eval_opponents", "'greedy' twice"]),  # two columns of one name
    ("fixed_opponent=ppo:checkpoints/ppo_3p.pt", ["fixed_opponent", "trained for 3 players"]),  # with opp_fixed 0
    ("target=1e9", ["target", "up to 10,000"]),  # was a first evaluation that never ended
    ("learning_rate=-1", ["learning_rate", "a positive number up to 1"]),
    ("ent_coef=nan", ["ent_coef", "a finite number"]),  # was an illegal action after one update
    ("max_minutes=inf", ["max_minutes", "a finite number"]),
    ("clip_coef=-1", ["clip_coef", "a positive number"]),
    ("eval_workers=-1", ["eval_workers", "a positive integer"]),
    ("num_envs=2000000", ["num_envs", "a whole number from 1 to 1,000,000"]),  # was the env's error mid-start
    ("run_name=../../escaped", ["run_name", "without '/'"]),  # was a folder outside runs_dir
    ("run_name=a/b", ["run_name", "without '/'"]),
    ("run_name=''", ["run_name", "a non-empty name"]),
    ("run_name=..", ["run_name", "not '.' or '..'"]),  # refused, but the message named only '/'
    (["opp_self=1e308", "opp_pool=1e308"], ["opponent shares", "positive sum"]),  # was NumPy's "do not sum to 1"
    ("torch_threads=100000", ["torch_threads", "a positive integer up to 256"]),  # was a segmentation fault
    ("eval_workers=100000", ["eval_workers", "a positive integer up to 256"]),
    ("hidden_sizes=[100000000]", ["hidden_sizes", "positive widths up to 16,384"]),  # was torch's "can't allocate"
    ("action_width=100000000", ["action_width", "a positive width up to 16,384"]),
    ("fixed_opponent=nosuch", ["fixed_opponent", "unknown agent spec 'nosuch'"]),  # was accepted with opp_fixed 0
    ("fixed_opponent=search", ["fixed_opponent", "no batched twin"]),
])
def test_bad_values_name_the_key(override, words):
    with pytest.raises(ConfigError) as err:
        load_config(None, override if isinstance(override, list) else [override])
    for word in words:
        assert word in str(err.value)


def test_unknown_key_in_a_yaml_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("num_players: 2\nlearning_rat: 0.001\n")
    with pytest.raises(ConfigError, match="learning_rat.*learning_rate"):
        load_config(str(path))


def test_command_line_reports_config_errors(capsys):
    assert main(["--config", "configs/smoke.yaml", "bogus_key=1"]) == 2
    assert "bogus_key" in capsys.readouterr().err


@pytest.fixture
def no_training(monkeypatch):
    """``training.loop.train`` replaced by a recorder: a command line that would start a run records it and stops
    there, as Ctrl-C would (status 130)."""
    import training.loop

    started = []

    def record(cfg, run_dir=None, resume=False):
        started.append((cfg, run_dir))
        raise KeyboardInterrupt

    monkeypatch.setattr(training.loop, "train", record)
    return started


@pytest.mark.parametrize("args, words", [
    (["--resume", ""], "argument --resume: an empty path is not allowed; allowed: a run folder"),  # was a new run
    (["--config", ""], "argument --config: an empty path is not allowed; allowed: a config file"),  # '.: Is a dir'
    (["--config", "configs/smoke.yaml", "--run-dir", ""],
     "argument --run-dir: an empty path is not allowed; allowed: a folder for the new run"),  # 'No such file'
])
@pytest.mark.parametrize("command", ["python -m training", "allfives train"])
def test_an_empty_path_is_refused_in_one_line_naming_the_option(no_training, capsys, command, args, words):
    from allfives_env.cli import main as allfives_main

    with pytest.raises(SystemExit) as exit_info:
        main(args) if command == "python -m training" else allfives_main(["train", *args])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.startswith(f"{command}: error: {words}") and len(err.splitlines()) == 1
    assert not no_training


@pytest.mark.parametrize("command", ["python -m training", "allfives train"])
def test_overrides_go_before_between_and_after_the_options(no_training, tmp_path, command):
    from allfives_env.cli import main as allfives_main

    args = ["max_minutes=0.05", "--config", "configs/smoke.yaml", "seed=3", "--run-dir", str(tmp_path), "num_envs=8"]
    status = main(args) if command == "python -m training" else allfives_main(["train", *args])
    assert status == 130  # the run started (and was stopped by the recorder); was "unrecognized arguments: seed=3"
    [(cfg, run_dir)] = no_training
    assert (cfg.max_minutes, cfg.seed, cfg.num_envs, cfg.run_name, run_dir) == (0.05, 3, 8, "smoke", str(tmp_path))


@pytest.mark.parametrize("command", ["python -m training", "allfives train"])
def test_help_still_lists_the_overrides_and_every_key(capsys, command):
    from allfives_env.cli import main as allfives_main

    with pytest.raises(SystemExit) as exit_info:
        main(["seed=3", "--help"]) if command == "python -m training" else allfives_main(["train", "--help"])
    out = capsys.readouterr().out
    assert exit_info.value.code == 0 and "[key=value ...]" in out and "key=value" in out.split("options:")[0]
    # both list every key (allfives train --help said only that python -m training --help would)
    assert "config keys (override with key=value;" in out and "  torch_threads: " in out


def test_help_shows_each_keys_default_as_an_override_that_gives_it_back(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out.split("config keys", 1)[1]
    shown = dict(re.findall(r"^  (\w+): .* \[default: (.*)\]$", out, flags=re.M))
    assert set(shown) == set(TrainConfig.__dataclass_fields__)
    assert shown["learning_rate"] == str(TrainConfig().learning_rate) and shown["target"] == "none"
    # what --help shows, written back as overrides, is the config without --config
    assert load_config(None, [f"{key}={text}" for key, text in shown.items()]) == TrainConfig()


def test_parse_override_reads_yaml_values():
    assert parse_override("x=[1, 2]") == ("x", [1, 2])
    assert parse_override("x=none") == ("x", "none")
    assert parse_override("x=null") == ("x", None)


@pytest.mark.parametrize("override, words", [
    ("device=cuda", "no CUDA device"), ("init_from=/no/such/policy.pt", "not found"),
    ("eval_opponents=[nope]", "eval_opponents.*'nope'.*unknown agent spec"),
    # buffers allocated lazily: the run was killed for memory once they filled, or a 6 TiB allocation's traceback
    ("num_steps=100000000", r"num_envs x num_steps: a rollout of 6,400,000,128 transitions needs about .* GiB"),
    # an evaluation plays all its games in one batched env: was refused at the first evaluation, naming num_envs
    ("eval_games=100000000", r"config key 'eval_games' .*allowed: a positive integer up to 1,000,000"),
    ("eval_opponents=[]", r"config key 'eval_opponents' is \[\]; allowed: a non-empty list"),  # named best_metric
    ("init_from=/", "init_from: checkpoint '/' is a folder, not a file"),  # the key was not named
])
def test_a_refused_run_leaves_no_folder_behind(tmp_path, capsys, override, words):
    import re

    runs = tmp_path / "runs"
    assert main(["--config", "configs/smoke.yaml", f"runs_dir={runs}", override]) == 2
    assert re.search(words, capsys.readouterr().err)
    assert not runs.exists() or not list(runs.iterdir())


def test_a_key_given_twice_is_refused_in_a_file_and_in_the_overrides(tmp_path, capsys):
    """YAML and the overrides both kept the last value without a word: seed=1 ... seed=2 trained with seed 2."""
    twice = tmp_path / "twice.yaml"
    twice.write_text("extends: smoke.yaml\nseed: 1\nnum_envs: 8\nseed: 2\n")
    (tmp_path / "smoke.yaml").write_text(open("configs/smoke.yaml").read())
    runs = tmp_path / "runs"
    assert main(["--config", str(twice), f"runs_dir={runs}"]) == 2
    assert capsys.readouterr().err.strip().endswith("twice.yaml (line 4): key 'seed' is given twice; give it once")
    assert main(["--config", "configs/smoke.yaml", f"runs_dir={runs}", "seed=1", "seed=2"]) == 2
    assert capsys.readouterr().err.strip().endswith("override 'seed' is given twice (seed=1 and seed=2); give it once")
    assert not runs.exists()
    assert load_config("configs/smoke.yaml", ["seed=1", "num_envs=8"]).seed == 1  # distinct keys still stack
    # a merge key's values may be replaced, and a list as a key keeps YAML's own one-line error
    merged = tmp_path / "merged.yaml"
    merged.write_text("extends: smoke.yaml\n<<: {seed: 3, num_envs: 8}\nseed: 4\n")
    assert load_config(str(merged)).seed == 4 and load_config(str(merged)).num_envs == 8
    listed = tmp_path / "listed.yaml"
    listed.write_text("seed: 1\n? [a, b]\n: 1\n")
    with pytest.raises(ConfigError, match=r"listed.yaml: not valid YAML \(line 2, column 3\): found unhashable key"):
        load_config(str(listed))
    from training.exploit import exploit_config

    with pytest.raises(ConfigError, match=r"^override 'seed' is given twice \(seed=1 and seed=3\)"):
        exploit_config("greedy", 2, 1.0, ["seed=1", "seed=3"])


def test_malformed_yaml_and_unwritable_places_are_one_line(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("num_players: [2\nseed: 1\n")
    assert main(["--config", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yaml: not valid YAML (line" in err and "Traceback" not in err and len(err.splitlines()) == 1
    (tmp_path / "file").write_text("x")
    assert main(["--config", "configs/smoke.yaml", f"runs_dir={tmp_path / 'file'}"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err
    # /proc lets no one make files, though os.access says yes to root: refused before the run, in one line
    for place in (["--run-dir", "/proc/allfives-run"], ["runs_dir=/proc/allfives-runs"]):
        assert main(["--config", "configs/smoke.yaml", *place]) == 2
        err = capsys.readouterr().err
        assert "cannot be written: '/proc' is not a writable folder" in err and len(err.splitlines()) == 1
    base = tmp_path / "loop.yaml"
    base.write_text("extends: loop.yaml\n")
    assert main(["--config", str(base)]) == 2
    assert "loops back" in capsys.readouterr().err
    base.write_text('extends: ""\n')  # was "<folder>: Is a directory"
    assert main(["--config", str(base)]) == 2
    assert "'extends' must name a config file" in capsys.readouterr().err


def test_setting_files_hold_only_what_differs():
    """Each shipped setting extends base.yaml (or another setting) and restates no inherited value."""
    import yaml

    from training.config import read_config_file

    for name in ("ppo_2p", "ppo_3p", "ppo_4p", "ppo_3p_finetune", "ppo_4p_finetune"):
        own = yaml.safe_load(open(f"configs/{name}.yaml"))
        parent = read_config_file(f"configs/{own.pop('extends')}")
        assert not {k for k, v in own.items() if parent.get(k) == v}, name
    assert load_config("configs/ppo_2p.yaml").max_minutes == 30


def test_no_config_says_what_it_runs(tmp_path, capsys):
    assert main([f"runs_dir={tmp_path}", "total_timesteps=512", "num_envs=16", "num_steps=16", "eval_every=0",
                 "tensorboard=false", "hidden_sizes=[8]", "progress=false"]) == 0
    captured = capsys.readouterr()
    assert "no --config: training with the defaults (2 players, up to 512 decisions" in captured.err
    assert "torch thread(s) (chosen from the free cores" in captured.err
    assert "run folder:" in captured.out and "play the result: ppo:" in captured.out
    assert "{" not in captured.out  # formatted for people, not a dict


@pytest.mark.parametrize("busy, expected", [(0.0, 2), (0.4, 2), (0.6, 1), (1.9, 1), (7.0, 1)])
def test_torch_threads_follow_the_cores_busy_now(monkeypatch, busy, expected):
    import os

    from training import trainer

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (7.0, 7.0, 7.0))  # a lagging average is not used
    monkeypatch.setattr(trainer, "busy_cores_now", lambda window_s: busy)
    assert trainer.free_cores() == expected


@pytest.mark.parametrize("load, expected", [(0.0, 2), (0.6, 1), (7.0, 1)])
def test_torch_threads_fall_back_to_the_load_average(monkeypatch, load, expected):
    import os

    from training import trainer

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1})
    monkeypatch.setattr(os, "getloadavg", lambda: (load, 0.0, 0.0))
    monkeypatch.setattr(trainer, "_cpu_counters", lambda: None)
    assert trainer.free_cores() == expected


def test_busy_cores_are_read_from_the_cpu_counters(monkeypatch):
    from training import trainer

    samples = iter([(100, 1000, 2), (100 + 150, 1000 + 200, 2)])  # 150 of 200 ticks busy on 2 cpus
    monkeypatch.setattr(trainer, "_cpu_counters", lambda: next(samples))
    assert trainer.busy_cores_now(0.0) == pytest.approx(1.5)


def test_a_busy_process_is_seen_at_once():
    import multiprocessing

    from training import trainer

    spinner = multiprocessing.get_context("spawn").Process(target=_spin, args=(3.0,))
    spinner.start()
    try:
        time.sleep(0.5)
        assert trainer.busy_cores_now(0.5) >= 0.7
    finally:
        spinner.terminate()
        spinner.join()


def _spin(seconds):
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.mark.parametrize("overrides, words", [
    (["gamma=1.5"], ["gamma", "between 0 and 1"]),
    (["learning_rate=0"], ["learning_rate", "a positive number up to 1"]),
    (["opp_greedy=-0.5"], ["opponent shares", ">= 0"]),
])
def test_more_bad_values_name_the_key(overrides, words):
    """gamma above 1, a learning rate of 0 and a negative opponent share are refused, naming the key."""
    with pytest.raises(ConfigError) as err:
        load_config(None, overrides)
    for word in words:
        assert word in str(err.value)


def test_none_null_and_any_case_read_as_none_for_keys_that_take_none():
    """The help says "None: ..." for these keys, and YAML reads only ``null``: ``none`` in any case is None
    too, for every key that takes None, and stays a word for a key that does not."""
    cfg = load_config("configs/smoke.yaml", ["torch_threads=none", "target=None", "target_kl=NULL", "init_from=none",
                                             "features=none"])
    assert (cfg.torch_threads, cfg.target, cfg.target_kl, cfg.init_from) == (None, None, None, None)
    assert cfg.features == "none"
    with pytest.raises(ConfigError, match="config key 'seed' needs an integer; got 'none'"):
        load_config("configs/smoke.yaml", ["seed=none"])


@pytest.mark.parametrize("players, most", [(2, 1_000_000), (3, 999_999), (4, 1_000_000)])
def test_eval_games_up_to_the_batched_envs_that_hold_every_rotation(players, most):
    """An evaluation plays ceil(games / sides) deals in every rotation at once: with 3 sides 1,000,000 games
    would need 1,000,002 games of the batched env, one past its limit."""
    assert make_config({"num_players": players, "eval_games": most}).eval_games == most
    with pytest.raises(ConfigError, match=f"'eval_games' has the value {most + 1}; allowed: a positive integer "
                                          f"up to {most:,}"):
        make_config({"num_players": players, "eval_games": most + 1})


def test_a_rollout_that_would_not_fit_in_memory_is_refused_saying_how_much_fits():
    from training.rollout import check_rollout_fits

    # a slot: 10 inputs (float32), 114 mask bytes, 50 bytes of scalars; twice over with the update's copy
    check_rollout_fits(1000, 10, 114, memory=408_000)
    with pytest.raises(ConfigError, match=r"a rollout of 1,001 transitions needs about 0\.0 GiB .* more than this "
                                          r"machine's 0\.0 GiB; allowed: num_envs x num_steps up to about 1,000 here"):
        check_rollout_fits(1001, 10, 114, memory=408_000)


def _run_folder(tmp_path):
    from training.run_folder import save_config

    run = tmp_path / "run"
    run.mkdir()
    save_config(load_config("configs/smoke.yaml"), str(run))
    return run


@pytest.mark.parametrize("args, words", [
    (["--run-dir", "{other}"], "give either --resume RUN_DIR or --run-dir, not both"),  # went on in RUN_DIR silently
    (["runs_dir={other}"], "runs_dir={other}: a resumed run keeps its runs_dir (it goes on in its own folder)"),
    (["run_name=zz"], "run_name=zz: a resumed run keeps its run_name (it goes on in its own folder)"),
])
def test_a_resume_refuses_what_would_move_it_to_another_folder(no_training, tmp_path, capsys, args, words):
    run, other = _run_folder(tmp_path), tmp_path / "other"
    before = (run / "config.yaml").read_text()
    args = [a.replace("{other}", str(other)) for a in args]
    assert main(["--resume", str(run), *args]) == 2
    err = capsys.readouterr().err
    assert words.replace("{other}", str(other)) in err and len(err.splitlines()) == 1
    assert not no_training and not other.exists() and (run / "config.yaml").read_text() == before


@pytest.mark.parametrize("words", ["init_from=none", "init_from=NULL", "init_from=null"])
def test_a_resume_takes_none_for_a_kept_key_that_is_none(no_training, tmp_path, words):
    """init_from=none reads as None, as a new run reads it: the same as the run's own, so not a change."""
    run = _run_folder(tmp_path)
    assert main(["--resume", str(run), words]) == 130  # the run started (stopped by the recorder)
    assert no_training[0][0].init_from is None


def test_a_resume_reads_a_none_word_as_a_name_where_the_key_takes_no_none(no_training, tmp_path, capsys):
    """Catches run_name=none read as None on resume: a run named "none" was refused its own name, and a
    run named otherwise was refused with a change it did not ask for."""
    from training.run_folder import save_config

    named = tmp_path / "named"
    named.mkdir()
    save_config(load_config("configs/smoke.yaml", ["run_name=none"]), str(named))
    assert main(["--resume", str(named), "run_name=none"]) == 130  # its own name: the run started
    assert no_training[-1][0].run_name == "none"
    run = _run_folder(tmp_path)
    assert main(["--resume", str(run), "run_name=none"]) == 2
    err = capsys.readouterr().err
    assert "run_name=none: a resumed run keeps its run_name" in err and len(err.splitlines()) == 1


def test_a_resume_refuses_a_kept_key_of_the_wrong_type_in_one_line(no_training, tmp_path, capsys):
    run = _run_folder(tmp_path)
    assert main(["--resume", str(run), "seed=abc"]) == 2
    err = capsys.readouterr().err
    assert "config key 'seed' needs an integer; got 'abc'" in err and len(err.splitlines()) == 1
    assert not no_training


def test_a_folder_with_a_run_but_no_checkpoint_is_not_sent_to_resume(tmp_path):
    """A run stopped by an error before its first checkpoint leaves config.yaml and metrics.csv: --resume
    would refuse it (no latest.pt), so the refusal must not suggest it."""
    from training.run_folder import check_new_run_folder

    run = _run_folder(tmp_path)
    (run / "metrics.csv").write_text("update\n")
    with pytest.raises(ConfigError) as refused:
        check_new_run_folder(str(run))
    assert "(config.yaml, metrics.csv) but no latest.pt to resume from" in str(refused.value)
    assert "--resume" not in str(refused.value)
    (run / "latest.pt").write_text("")
    with pytest.raises(ConfigError, match="continue it with --resume"):
        check_new_run_folder(str(run))


def test_a_fixed_opponent_whose_file_is_missing_is_named_by_its_key(tmp_path, capsys):
    runs = tmp_path / "runs"
    assert main(["--config", "configs/smoke.yaml", f"runs_dir={runs}", "opp_fixed=1",
                 "fixed_opponent=ppo:/no/such/policy.pt"]) == 2
    err = capsys.readouterr().err
    assert "config key 'fixed_opponent' is 'ppo:/no/such/policy.pt': checkpoint not found" in err
    assert len(err.splitlines()) == 1 and not runs.exists()


@pytest.mark.parametrize("key", ["gamma", "gae_lambda"])
@pytest.mark.parametrize("value", [0.0, 1.0])
def test_gamma_and_lambda_take_both_ends_of_0_to_1(key, value):
    """gamma and gae_lambda are "between 0 and 1", both included (gamma 1: undiscounted returns).
    Catches (config.py _validate: ``cfg.gamma <= 1.0`` -> ``< 1.0``)."""
    assert getattr(load_config(None, [f"{key}={value}"]), key) == value
    with pytest.raises(ConfigError, match=f"'{key}'.*between 0 and 1"):
        load_config(None, [f"{key}={-0.01 if value == 0 else 1.01}"])


def test_opponent_shares_that_are_all_zero_are_refused():
    """The opp_* shares are weights normalised to sum 1: all zero leaves no game to play (0 / 0).
    Catches (config.py _validate: ``not 0 < sum(shares)`` -> ``not 0 <= sum(shares)``)."""
    zero = ["opp_self=0", "opp_pool=0", "opp_greedy=0", "opp_random=0", "opp_fixed=0"]
    with pytest.raises(ConfigError, match="opponent shares .* with a positive sum"):
        load_config(None, zero)
    one = [share for share in zero if not share.startswith("opp_random")] + ["opp_random=0.5"]
    assert load_config(None, one).opp_random == 0.5  # one positive share is enough


def test_a_whole_float_is_taken_for_an_integer_key_and_a_fraction_is_not():
    """``total_timesteps=2.0e+7`` (YAML reads a float) is the integer 20,000,000; 8.5 games are refused.
    Catches (config.py _check_value: the whole-float -> int conversion dropped)."""
    cfg = load_config(None, ["total_timesteps=2.0e+7", "num_envs=64.0"])
    assert cfg.total_timesteps == 20_000_000 and type(cfg.total_timesteps) is int
    assert cfg.num_envs == 64 and type(cfg.num_envs) is int
    with pytest.raises(ConfigError, match="'num_envs' needs an integer; got 8.5"):
        load_config(None, ["num_envs=8.5"])


def test_a_rollout_is_not_refused_where_the_system_does_not_say_its_memory(monkeypatch):
    """Catches check_rollout_fits failing (TypeError) when machine_memory() returns None."""
    monkeypatch.setattr(rollout, "machine_memory", lambda: None)
    assert rollout.check_rollout_fits(10 ** 9, 10, 114) is None


def _fake_memory(monkeypatch, cgroup_text):
    monkeypatch.setattr(rollout.os, "sysconf", lambda name: {"SC_PHYS_PAGES": 2 ** 20, "SC_PAGE_SIZE": 4096}[name])
    real_open = open

    def fake_open(path, *args, **kwargs):
        if path == "/sys/fs/cgroup/memory.max":
            return io.StringIO(cgroup_text)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(rollout, "open", fake_open, raising=False)


def test_machine_memory_is_the_control_group_limit_where_it_is_lower(monkeypatch):
    """Catches machine_memory ignoring a cgroup memory.max below the machine's memory."""
    _fake_memory(monkeypatch, "1048576\n")
    assert rollout.machine_memory() == 1048576
    _fake_memory(monkeypatch, "max\n")
    assert rollout.machine_memory() == 2 ** 32
    with pytest.raises(ConfigError, match="more than this machine's 0.0 GiB"):
        _fake_memory(monkeypatch, "1048576\n")
        rollout.check_rollout_fits(10 ** 6, 10, 114)


def test_quoted_none_words_with_spaces_and_null_read_as_none():
    """Catches 'null' or a none word with spaces around it (a quoted YAML string) not read as None."""
    cfg = load_config("configs/smoke.yaml", ["target='null'", "target_kl=' None '", "init_from='NULL'"])
    assert (cfg.target, cfg.target_kl, cfg.init_from) == (None, None, None)
    with pytest.raises(ConfigError, match="config key 'seed' needs an integer; got 'null'"):
        load_config("configs/smoke.yaml", ["seed='null'"])


@pytest.mark.parametrize("folder", ["configs", "checkpoints", "checkpoints/mine"])
def test_a_run_folder_among_the_shipped_files_is_refused(capsys, folder):
    """--run-dir configs wrote config.yaml into the shipped configs (read as one by a relative --config),
    --run-dir checkpoints a run among the shipped policies."""
    before = sorted(os.listdir("configs")), sorted(os.listdir("checkpoints"))
    assert main(["--config", "configs/smoke.yaml", "--run-dir", folder, "total_timesteps=1024"]) == 2
    assert "where the package keeps its shipped files" in capsys.readouterr().err
    assert main(["--config", "configs/smoke.yaml", "runs_dir=checkpoints", "total_timesteps=1024"]) == 2
    assert (sorted(os.listdir("configs")), sorted(os.listdir("checkpoints"))) == before
