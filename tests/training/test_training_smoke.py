"""End to end: the smoke config trains, evaluates, checkpoints, resumes and plots;
same seed gives the same updates; a resumed run equals an uninterrupted one;
bad checkpoints are clear errors; ppo:PATH plays in the arena."""

import os
import time
from types import SimpleNamespace

import numpy as np
import pytest
import torch

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.agent import CheckpointError
from allfives_env.arena import run_match
from allfives_env.cli import main as cli_main
from allfives_env.rules.config import RulesConfig
from training import trainer
from training.checkpoint import load_checkpoint
from training.cli import main as train_main
from training.config import load_config, to_dict
from training.plot import main as plot_main
from training.rollout import RANDOM
from training.run_folder import lock_run_folder
from training.summary import main as summary_main

FAST = ["eval_every=0", "torch_threads=1", "tensorboard=false", "anneal_lr=false", "total_timesteps=2048", "checkpoint_minutes=0"]


def _weights(path):
    return torch.load(path, map_location="cpu", weights_only=True)["policy"]["state_dict"]


def _same(a, b):
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


def test_smoke_config_runs_the_whole_pipeline(tmp_path, capsys):
    t0 = time.time()
    run = str(tmp_path / "run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run]) == 0
    for name in ("config.yaml", "metrics.csv", "latest.pt", "best.pt", "policy.pt"):
        assert os.path.isfile(os.path.join(run, name)), name
    assert os.listdir(os.path.join(run, "tb"))
    lines = open(os.path.join(run, "metrics.csv")).read().splitlines()
    header = lines[0].split(",")
    for col in ("sps", "t_env", "t_inference", "t_update", "approx_kl", "clipfrac", "entropy",
                "explained_variance", "eval_greedy_win", "eval_greedy_lo", "eval_greedy_hi", "eval_greedy_margin"):
        assert col in header
    assert len(lines) - 1 == 6  # one row per update; evaluations at updates 3 and 6
    ckpt = load_checkpoint(os.path.join(run, "latest.pt"))
    assert ckpt["update"] == 6 and ckpt["global_step"] == 6144
    # resume for two more updates through the `allfives train` command
    assert cli_main(["train", "--resume", run, "total_timesteps=8192"]) == 0
    assert load_checkpoint(os.path.join(run, "latest.pt"))["update"] == 8
    updates = [int(row.split(",")[0]) for row in open(os.path.join(run, "metrics.csv")).read().splitlines()[1:]]
    assert updates == list(range(1, 9))  # one row per update, the resumed ones after the first run's
    latest = open(os.path.join(run, "latest.pt"), "rb").read()
    capsys.readouterr()
    assert cli_main(["train", "--resume", run]) == 2  # its budget is spent: nothing to resume
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has used its budget (8,192 decisions)" in err
    assert err.endswith(f"--resume {run} total_timesteps=16384")
    assert cli_main(["train", "--resume", run, "total_timesteps=1024"]) == 2  # the hint doubles what was used
    assert capsys.readouterr().err.strip().endswith(f"--resume {run} total_timesteps=16384")
    assert cli_main(["train", "--resume", run, "total_timesteps=10240", "seed=5"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "seed=5: a resumed run keeps its seed" in err
    lock = lock_run_folder(run)  # as a trainer still running in the folder holds it
    try:
        assert cli_main(["train", "--resume", run, "total_timesteps=10240"]) == 2
    finally:
        os.close(lock)
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"the run in {run} is being trained by another process" in err
    assert open(os.path.join(run, "latest.pt"), "rb").read() == latest
    assert load_checkpoint(os.path.join(run, "latest.pt"))["update"] == 8
    assert "seed: 1\n" in open(os.path.join(run, "config.yaml")).read()
    # a config.yaml edited by hand was trained from latest.pt and kept recording a seed the run never used
    config_text = open(os.path.join(run, "config.yaml")).read()
    with open(os.path.join(run, "config.yaml"), "w") as f:
        f.write(config_text.replace("seed: 1\n", "seed: 7\n"))
    assert cli_main(["train", "--resume", run, "total_timesteps=10240"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is incompatible with this config (seed: checkpoint 1 vs config 7)" in err
    assert open(os.path.join(run, "latest.pt"), "rb").read() == latest
    assert open(os.path.join(run, "config.yaml")).read() == config_text.replace("seed: 1\n", "seed: 7\n")
    with open(os.path.join(run, "config.yaml"), "w") as f:
        f.write(config_text)
    assert sorted(os.listdir(run)) == ["best.pt", "config.yaml", "latest.pt", "metrics.csv", "policy.pt", "tb"]
    assert plot_main([run]) == 0
    for name in ("winrate_steps.png", "winrate_time.png", "training.png"):
        assert os.path.getsize(os.path.join(run, "plots", name)) > 1000
    assert summary_main([run]) == 0
    # the trained policy plays in the arena as ppo:PATH
    match = run_match(RulesConfig(num_players=2, target=60), [f"ppo:{run}/policy.pt", "random"], 4, seed=3)
    assert match.to_dict()["agents"][0]["games"] == 4
    assert time.time() - t0 < 60


def test_a_run_resumes_after_its_init_from_file_is_gone(tmp_path, capsys):
    """The resumed weights come from latest.pt: the file the run started from is not read again."""
    start, run = tmp_path / "start", tmp_path / "run"
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", str(start), *FAST]) == 0
    os.rename(start / "policy.pt", tmp_path / "from.pt")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", str(run), *FAST,
                       f"init_from={tmp_path / 'from.pt'}"]) == 0
    os.remove(tmp_path / "from.pt")
    assert train_main(["--resume", str(run), "total_timesteps=4096"]) == 0, capsys.readouterr().err
    assert load_checkpoint(str(run / "latest.pt"))["global_step"] >= 4096


def test_summary_and_plot_refuse_a_folder_that_is_not_a_run_in_one_line_and_create_nothing(tmp_path, capsys):
    def refused(main, args, words):
        assert main([str(a) for a in args]) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err

    refused(summary_main, [tmp_path], "has no metrics.csv (is it a run folder?)")
    refused(plot_main, [tmp_path / "nope"], "has no metrics.csv")
    assert not (tmp_path / "nope").exists()
    refused(plot_main, [tmp_path, "--out", tmp_path / "a" / "b"], "folder " + str(tmp_path / "a") + " does not exist")
    assert not (tmp_path / "a").exists()
    (tmp_path / "metrics.csv").write_text("update,global_step,wall_s\n")
    refused(summary_main, [tmp_path], "has no update logged")
    refused(plot_main, [tmp_path], "has no update logged")  # was blank plots and status 0
    assert not (tmp_path / "plots").exists()


def test_same_seed_same_first_updates_and_exact_resume(tmp_path):
    a, b, c = (str(tmp_path / name) for name in "abc")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", a, *FAST]) == 0
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", b, *FAST]) == 0
    assert _same(_weights(f"{a}/latest.pt"), _weights(f"{b}/latest.pt"))
    # interrupted after 2 updates, resumed to 4 == 4 updates straight
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", c, *FAST[:-2], "total_timesteps=4096",
                       "checkpoint_minutes=0"]) == 0
    assert train_main(["--resume", a, "total_timesteps=4096"]) == 0
    assert _same(_weights(f"{a}/latest.pt"), _weights(f"{c}/latest.pt"))
    other = str(tmp_path / "other")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", other, *FAST, "seed=2"]) == 0
    assert not _same(_weights(f"{b}/latest.pt"), _weights(f"{other}/latest.pt"))


def test_the_end_of_a_run_names_only_the_files_its_folder_holds(tmp_path, capsys):
    """Without TensorBoard and evaluations there is no tb/ and no best.pt; the summary named them anyway."""
    run = str(tmp_path / "plain")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *FAST]) == 0
    out = capsys.readouterr().out
    listed = next(line for line in out.splitlines() if "config.yaml" in line).strip()
    assert listed == f"config.yaml, metrics.csv, latest.pt (resume: --resume {run}), policy.pt"
    assert sorted(os.listdir(run)) == ["config.yaml", "latest.pt", "metrics.csv", "policy.pt"]


def test_a_run_neither_reads_nor_moves_torchs_global_random_state(tmp_path):
    """State is explicit: the run's random start comes from its seed alone, drawn under a fork of
    torch's global generator, and a resume no longer restores that generator."""
    torch.manual_seed(123)
    before = torch.get_rng_state()
    first = str(tmp_path / "first")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", first, *FAST]) == 0
    assert torch.equal(torch.get_rng_state(), before)
    torch.manual_seed(456)  # another global state: the same seed still trains the same weights
    again = str(tmp_path / "again")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", again, *FAST]) == 0
    assert _same(_weights(f"{first}/latest.pt"), _weights(f"{again}/latest.pt"))
    before = torch.get_rng_state()
    assert train_main(["--resume", first, "total_timesteps=4096"]) == 0
    assert torch.equal(torch.get_rng_state(), before)


def test_a_resumed_run_keeps_its_measured_thread_count(tmp_path, monkeypatch, capsys):
    """torch's sums depend on the thread count: a run that chose its count from the free cores resumes
    with that count, not with what the machine has free when it resumes."""
    run = str(tmp_path / "run")
    unpinned = [option for option in FAST if not option.startswith("torch_threads")]
    monkeypatch.setattr(trainer, "free_cores", lambda: 1)
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *unpinned]) == 0
    assert "1 torch thread(s) (chosen from the free cores" in capsys.readouterr().err
    monkeypatch.setattr(trainer, "free_cores", lambda: 2)
    assert train_main(["--resume", run, "total_timesteps=3072"]) == 0
    assert "1 torch thread(s) (the count this run started with" in capsys.readouterr().err
    assert load_checkpoint(f"{run}/latest.pt")["trainer"]["torch_threads"] == 1


def test_more_torch_threads_than_cores_is_warned(tmp_path, monkeypatch, capsys):
    """A thread count above the cores this process may use (oversubscription: every update slower) trains
    as asked, with one line saying so; a count that fits says nothing."""
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0})
    run = str(tmp_path / "run")
    fast = [o for o in FAST if not o.startswith(("torch_threads=", "total_timesteps="))]  # each key once
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *fast, "torch_threads=3",
                       "total_timesteps=512"]) == 0
    err = capsys.readouterr().err
    assert "warning: torch_threads=3 is more than the 1 core(s) this process may use" in err
    assert "3 torch thread(s)" in err
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", str(tmp_path / "fits"), *fast,
                       "torch_threads=1", "total_timesteps=512"]) == 0
    assert "warning: torch_threads" not in capsys.readouterr().err


def test_bad_checkpoints_are_clear_errors(tmp_path, capsys):
    run = str(tmp_path / "run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *FAST]) == 0
    cfg = to_dict(load_config("configs/smoke.yaml", FAST))
    with pytest.raises(CheckpointError, match="incompatible.*hidden_sizes"):
        load_checkpoint(f"{run}/latest.pt", {**cfg, "hidden_sizes": [32, 32]})
    for key, value in (("num_players", 3), ("num_players", 4), ("target", 77)):  # another game (R2, R3/V2)
        assert cfg[key] != value
        with pytest.raises(CheckpointError, match=rf"incompatible with this config \({key}: checkpoint "
                                                  rf"{cfg[key]!r} vs config {value!r}\)"):
            load_checkpoint(f"{run}/latest.pt", {**cfg, key: value})
    load_checkpoint(f"{run}/latest.pt", cfg)  # the config it was trained with
    with pytest.raises(CheckpointError, match="policy export"):
        load_checkpoint(f"{run}/policy.pt")
    data = open(f"{run}/latest.pt", "rb").read()
    with open(f"{run}/latest.pt", "wb") as f:
        f.write(data[: len(data) // 2])  # truncated
    with pytest.raises(CheckpointError, match="damaged"):
        load_checkpoint(f"{run}/latest.pt")
    assert train_main(["--resume", run]) == 2
    assert "damaged" in capsys.readouterr().err
    # a new run pointed at this one's folder is refused before it replaces anything
    before = {name: open(f"{run}/{name}", "rb").read() for name in ("latest.pt", "policy.pt", "metrics.csv")}
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *FAST]) == 2
    err = capsys.readouterr().err
    assert "already holds a run" in err and f"--resume {run}" in err and len(err.strip().splitlines()) == 1
    assert before == {name: open(f"{run}/{name}", "rb").read() for name in before}
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    with pytest.raises(ValueError, match="damaged or not a torch file") as refused:
        make_agent(f"ppo:{tmp_path / 'junk.pt'}")
    assert "weights_only" not in str(refused.value)  # torch's advice to load it unsafely is not passed on
    with pytest.raises(ValueError, match="not found"):
        make_agent(f"ppo:{tmp_path / 'missing.pt'}")
    agent = make_agent(f"ppo:{run}/policy.pt")
    with pytest.raises(ValueError, match="2 players"):
        run_match(RulesConfig(num_players=3), [agent, "random", "random"], 3)


def test_reply_control_features_warm_start_from_a_plain_policy_and_play(tmp_path):
    """init_from a policy without derived features: the widened network starts out
    with exactly the old policy's logits; the run trains, and its ppo:PATH file
    carries features='reply_control' so the arena builds the same input."""
    import numpy as np

    from allfives_env.agents.ppo.agent import build_policy, read_checkpoint
    from allfives_env.agents.ppo.features import PolicyInput
    from training.trainer import Trainer

    plain = str(tmp_path / "plain")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", plain, *FAST]) == 0
    cfg = load_config("configs/smoke.yaml", [*FAST, "features=reply_control", f"init_from={plain}/policy.pt"])
    trainer = Trainer(cfg, str(tmp_path / "warm"))
    old = build_policy(read_checkpoint(f"{plain}/policy.pt")["policy"])
    out = trainer.collector.out
    inputs = PolicyInput("reply_control", 2, 5)(out.obs, out.mask)
    assert inputs.shape[1] == old.obs_dim + 336 == trainer.net.obs_dim
    assert np.abs(inputs[:, old.obs_dim:]).sum() > 0  # the features are not all zero here
    with torch.no_grad():
        new_logits, new_values = trainer.net(torch.from_numpy(inputs))
        old_logits, old_values = old(torch.from_numpy(out.obs))
    torch.testing.assert_close(new_logits, old_logits)
    torch.testing.assert_close(new_values, old_values)

    warm = str(tmp_path / "warm_run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", warm, *FAST, "features=reply_control",
                       f"init_from={plain}/policy.pt"]) == 0
    assert read_checkpoint(f"{warm}/policy.pt")["policy"]["features"] == "reply_control"
    # the two phases plot as one agent: the second continues the first's decisions and minutes
    from training.plot import chain_metrics

    joined, starts = chain_metrics([plain, warm])
    steps = [v for v in joined["global_step"] if v is not None]
    assert steps == sorted(steps) and steps[-1] == 2048 + 2048
    assert [name for name, _, _ in starts] == ["plain", "warm_run"] and starts[1][1] == 2048
    assert plot_main(["--chain", plain, warm, "--out", str(tmp_path / "plots")]) == 0
    assert os.path.getsize(tmp_path / "plots" / "winrate_time.png") > 1000
    match = run_match(RulesConfig(num_players=2, target=60), [f"ppo:{warm}/policy.pt", "greedy"], 4, seed=3)
    assert match.to_dict()["agents"][0]["games"] == 4
    # a wider network starts out as the file's policy too: old weights in place, zero out of new units
    wide = Trainer(load_config("configs/smoke.yaml", [*FAST, "features=reply_control", "hidden_sizes=[96,80]",
                                                      f"init_from={plain}/policy.pt"]), str(tmp_path / "wide"))
    assert wide.net.hidden_sizes == (96, 80)
    with torch.no_grad():
        wide_logits, wide_values = wide.net(torch.from_numpy(inputs))
        hidden = wide.net.trunk(torch.from_numpy(inputs))
    torch.testing.assert_close(wide_logits, old_logits)
    torch.testing.assert_close(wide_values, old_values)
    assert (hidden[:, 64:] != 0).any()  # the new units are live (random weights in), only their outputs are zero
    # a mismatched start is a clear error: narrower, or another depth
    with pytest.raises(CheckpointError, match="at least as wide"):
        Trainer(load_config("configs/smoke.yaml", [*FAST, "hidden_sizes=[64,64,64]", f"init_from={plain}/policy.pt"]),
                str(tmp_path / "deeper"))
    with pytest.raises(CheckpointError, match="hidden_sizes"):
        Trainer(load_config("configs/smoke.yaml", [*FAST, "hidden_sizes=[32,32]", f"init_from={plain}/policy.pt"]),
                str(tmp_path / "bad"))
    with pytest.raises(CheckpointError, match="is a 2-player policy; this run has 3 players"):
        Trainer(load_config("configs/smoke.yaml", [*FAST, "num_players=3", f"init_from={plain}/policy.pt"]),
                str(tmp_path / "bad3"))


def test_a_stop_while_the_run_folder_is_set_up_leaves_a_run_that_resumes(tmp_path, monkeypatch):
    """Ctrl-C in the seconds between the folder's config.yaml and the first update left a folder without
    latest.pt: neither resumable nor new. The stop now waits for the first update's boundary."""
    import signal

    import training.loop as loop
    from training.cli import main as train_cli

    original = loop.save_config

    def save_then_interrupt(cfg, run_dir):
        original(cfg, run_dir)
        os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C would, while the folder is being set up

    monkeypatch.setattr(loop, "save_config", save_then_interrupt)
    run = str(tmp_path / "run")
    with pytest.raises(KeyboardInterrupt):
        loop.train(load_config("configs/smoke.yaml", FAST), run)
    assert load_checkpoint(os.path.join(run, "latest.pt"))["update"] == 0
    monkeypatch.setattr(loop, "save_config", original)
    assert train_cli(["--resume", run, "total_timesteps=1024"]) == 0
    assert load_checkpoint(os.path.join(run, "latest.pt"))["update"] == 1


def test_sigterm_writes_latest_and_the_run_resumes(tmp_path, capsys):
    """``kill`` (SIGTERM) stops a run like Ctrl-C: after the update in progress,
    latest.pt is written, exit status 130, and --resume continues from that update."""
    import signal
    import subprocess
    import sys

    run = str(tmp_path / "run")
    proc = subprocess.Popen([sys.executable, "-m", "training", "--config", "configs/smoke.yaml", "--run-dir", run,
                             "eval_every=0", "tensorboard=false", "total_timesteps=100000000", "checkpoint_minutes=60"],
                            cwd=os.path.dirname(os.path.dirname(os.path.dirname(__file__))),
                            stderr=subprocess.PIPE, text=True)
    metrics = os.path.join(run, "metrics.csv")
    deadline = time.time() + 120
    while time.time() < deadline:  # wait for two logged updates (checkpoint_minutes=60: no timed save)
        if os.path.isfile(metrics) and len(open(metrics).read().splitlines()) >= 3:
            break
        time.sleep(0.2)
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err
    assert "interrupted: wrote" in err and "--resume" in err
    ckpt = load_checkpoint(os.path.join(run, "latest.pt"))
    update = ckpt["update"]
    assert update >= 2 and ckpt["global_step"] == update * 1024  # stopped between updates: a consistent state
    assert train_main(["--resume", run, f"total_timesteps={(update + 1) * 1024}"]) == 0
    assert load_checkpoint(os.path.join(run, "latest.pt"))["update"] == update + 1
    # a stopped run's latest.pt exports to a small policy file that plays as ppo:PATH
    from training.export import main as export_main

    shipped = str(tmp_path / "shipped.pt")
    assert export_main([os.path.join(run, "latest.pt"), shipped]) == 0
    assert os.path.getsize(shipped) < os.path.getsize(os.path.join(run, "latest.pt"))
    assert _same(_weights(shipped), _weights(os.path.join(run, "latest.pt")))
    assert export_main([str(tmp_path / "missing.pt"), shipped]) == 2
    # outputs that would lose the run's checkpoint, or cannot be written, are refused in one line
    # (it replaced a shipped policy, the run's config.yaml or metrics.csv, or any file, with status 0)
    latest = os.path.join(run, "latest.pt")
    (tmp_path / "notes.txt").write_text("my notes")
    (tmp_path / "elsewhere.pt").write_bytes(open(latest, "rb").read())
    kept = {path: open(path, "rb").read() for path in (latest, os.path.join(run, "config.yaml"),
                                                       os.path.join(run, "metrics.csv"), tmp_path / "notes.txt")}
    capsys.readouterr()
    for source, target, message in ((latest, latest, "is the input file"),
                                    (shipped, latest, "is a file of the training run"),
                                    (shipped, os.path.join(run, "config.yaml"), "is a file of the training run"),
                                    (shipped, os.path.join(run, "metrics.csv"), "is a file of the training run"),
                                    (latest, "checkpoints/ppo_2p.pt", "is a policy file the package ships"),
                                    (shipped, str(tmp_path / "elsewhere.pt"), "is a training checkpoint"),
                                    (latest, str(tmp_path / "notes.txt"), "exists and is not a policy file"),
                                    (latest, str(tmp_path), "is an existing folder"),
                                    (latest, str(tmp_path / "no" / "p.pt"), "does not exist")):
        assert export_main([source, target]) == 2
        err = capsys.readouterr().err
        assert message in err and len(err.strip().splitlines()) == 1, err
    assert all(open(path, "rb").read() == before for path, before in kept.items())
    assert not os.path.exists(tmp_path / "no")
    assert export_main([latest, shipped]) == 0  # a policy file of one's own is replaced
    capsys.readouterr()
    assert export_main([shipped, str(tmp_path / "again.pt")]) == 0
    assert "(from a policy file)" in capsys.readouterr().out  # it said "update None, None decisions"
    match = run_match(RulesConfig(num_players=2, target=60), [f"ppo:{shipped}", "random"], 2, seed=1)
    assert match.to_dict()["agents"][0]["games"] == 2


def test_kill_9_then_resume_keeps_the_logs_in_step_with_the_checkpoint(tmp_path):
    """``kill -9`` can land after an update was logged but before its checkpoint: resuming drops
    those rows, so after three kills and a final resume metrics.csv holds each update once, in
    order, up to the checkpoint's, and TensorBoard keeps no events past it."""
    import signal
    import subprocess
    import sys

    root = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
    run = str(tmp_path / "run")
    metrics, latest = os.path.join(run, "metrics.csv"), os.path.join(run, "latest.pt")
    args = ["--config", "configs/smoke.yaml", "--run-dir", run, "eval_every=2", "eval_games=4",
            "total_timesteps=100000000", "checkpoint_minutes=0.004"]  # a checkpoint every ~0.25 s, updates faster
    for kill in range(3):
        command = args if kill == 0 else ["--resume", run]
        proc = subprocess.Popen([sys.executable, "-m", "training", *command], cwd=root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        rows_before = len(open(metrics).read().splitlines()) if os.path.isfile(metrics) else 1
        deadline = time.time() + 120
        while time.time() < deadline:
            # a few more rows logged, and a checkpoint to resume from (a busy machine can log three fast
            # updates before the first checkpoint's 0.25 s are up)
            if (os.path.isfile(metrics) and len(open(metrics).read().splitlines()) >= rows_before + 3 + kill
                    and os.path.isfile(latest)):
                break
            time.sleep(0.05 * (kill + 1))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    update = load_checkpoint(latest)["update"]
    assert train_main(["--resume", run, f"total_timesteps={(update + 2) * 1024}"]) == 0
    updates = [int(line.split(",")[0]) for line in open(metrics).read().splitlines()[1:]]
    assert updates == list(range(1, update + 3))


def test_evaluation_lines_align_whatever_the_opponent_names():
    from training.metrics import format_evaluation

    row = {"win_rate": 0.5, "ci_low": 0.4, "ci_high": 0.6, "margin": 1.0, "games": 10}
    lines = format_evaluation({"greedy": row, "search:engine=compiled": row, "ppo:checkpoints/ppo_2p.pt": row})
    assert len({line.index("0.500") for line in lines}) == 1
    assert lines[0].startswith("  greedy ") and "margin +1.0  (10 games)" in lines[0]


def _collector(**values):
    from training.config import make_config
    from training.rollout import Collector

    base = {"num_players": 2, "target": 60, "num_envs": 16, "num_steps": 8, "hidden_sizes": [8],
            "opp_self": 0.0, "opp_pool": 0.0, "opp_greedy": 0.0, "opp_random": 0.0,
            "eval_opponents": ["random"], "best_metric": "random"}
    return Collector(make_config({**base, **values}))


class _Counting(torch.nn.Module):
    """A policy network that counts the rows it is asked about."""

    def __init__(self, obs_dim):
        super().__init__()
        from allfives_env.agents.ppo.network import PolicyNet

        self.net, self.rows = PolicyNet(obs_dim, [8]), 0

    def forward(self, obs, mask=None):
        self.rows += obs.shape[0]
        return self.net(obs, mask)


def test_pool_games_play_the_snapshot_not_the_learner():
    """Opponent mix: in a ``pool`` game the non-learner seats are the snapshot set by set_opponent; the
    learner's network is asked about the learner's own decisions only."""
    col = _collector(opp_pool=1.0)
    learner, snapshot = _Counting(col.obs_dim), _Counting(col.obs_dim)
    col.set_opponent(snapshot)
    col.collect(learner)
    total = col.cfg.num_steps * col.B
    assert snapshot.rows > 0 and learner.rows + snapshot.rows == total


@pytest.mark.parametrize("players", [2, 4])
def test_the_learner_holds_every_side_in_the_games_against_others(players):
    """Each game draws the learner's side: over many games every side is the learner's, and in a
    non-self game the learner holds exactly that side's seats (both partners with 4 players)."""
    col = _collector(num_players=players, opp_greedy=1.0, num_envs=64)
    sides = set(col.learner_side.tolist())
    assert sides == set(range(col.config.num_sides))
    for b in range(col.B):
        expect = [col.config.side_of(s) == col.learner_side[b] for s in range(players)]
        assert col.learner[b].tolist() == expect


def test_the_snapshot_pool_keeps_the_newest_snapshots(tmp_path):
    """Every ``snapshot_every`` updates the live network joins the pool, which keeps the last ``pool_size``."""
    from training.trainer import Trainer

    cfg = load_config("configs/smoke.yaml", ["snapshot_every=1", "pool_size=2", "eval_every=0", "torch_threads=1",
                                             "tensorboard=false", "num_envs=16", "num_steps=8", "minibatch_size=64"])
    tr = Trainer(cfg, str(tmp_path / "run"))
    for _ in range(3):
        tr.iterate()
    assert len(tr.pool) == 2
    live = {k: v.detach().cpu() for k, v in tr.net.state_dict().items()}
    assert all(torch.equal(tr.pool[-1][k], live[k]) for k in live)  # the newest snapshot is the current net
    assert not all(torch.equal(tr.pool[0][k], live[k]) for k in live)


def test_the_collectors_win_rate_counts_a_drawn_game_as_half():
    """R25: with 3 players two tied sides can draw a game (each seat's final outcome 0). The learner's
    results per opponent type (``pop_results``) score each finished game 1 for a win (+1), 0.5 for a draw
    (0) and 0 for a loss (-1); three games ending at once, one of each, give a mean of 0.5 over 3 games."""
    collector = _collector(num_players=3, num_envs=4, opp_random=1.0)
    assert (collector.game_type == RANDOM).all()
    n, B = collector.n, collector.B
    outcome = np.zeros((B, n), np.float32)
    for game, value in zip(range(3), (1.0, 0.0, -1.0)):
        outcome[game, collector.learner_seat(game)] = value
    out = SimpleNamespace(rewards=np.zeros((B, n)), terminated=np.array([True, True, True, False]),
                          final_outcome=outcome)
    collector.pending[:] = -1
    collector._credit(out)
    mean, games = collector.pop_results()["random"]
    assert games == 3 and mean == 0.5


def test_export_keeps_the_policys_rules_and_features(tmp_path):
    """An export keeps the policy's own rules and features, not the player count's defaults, and its weights."""
    from pathlib import Path

    import training
    from allfives_env.agents.ppo.agent import build_policy, policy_features, read_checkpoint
    from training.checkpoint import export_policy
    from training.export import export

    shipped = str(Path(training.__file__).resolve().parents[1] / "checkpoints/ppo_2p.pt")
    policy = read_checkpoint(shipped)["policy"]
    source = str(tmp_path / "source.pt")
    rules = RulesConfig(num_players=2, divisor=3, target=150, hand_scoring="penalty")
    export_policy(source, build_policy(policy, shipped), rules, features=policy_features(policy, shipped))
    target = str(tmp_path / "out.pt")
    extra = export(source, target)
    assert extra["exported_from"] == source
    written = read_checkpoint(target)["policy"]
    assert RulesConfig.from_options(**written["rules"]) == rules
    assert policy_features(written, target) == policy_features(policy, shipped)
    for k, v in written["state_dict"].items():
        assert torch.equal(v, policy["state_dict"][k].float())


def _metrics_rows(run):
    import csv

    with open(os.path.join(run, "metrics.csv")) as f:
        return [{k: v for k, v in row.items() if not k.startswith(("wall_s", "sps", "t_"))} for row in csv.DictReader(f)]


def test_a_stop_is_not_evaluated_so_a_resumed_run_logs_and_keeps_the_uninterrupted_runs_best(tmp_path, monkeypatch):
    """A stop at update 2 evaluated there: best.pt and the best came from that evaluation, and the resumed
    run's metrics.csv had evaluation cells the uninterrupted run does not."""
    import signal

    args = ["eval_every=3", "eval_games=4", "eval_opponents=[random]", "best_metric=random", "torch_threads=1",
            "tensorboard=false", "anneal_lr=false", "total_timesteps=4096", "checkpoint_minutes=0"]
    straight, stopped = str(tmp_path / "straight"), str(tmp_path / "stopped")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", straight, *args]) == 0
    iterate = trainer.Trainer.iterate

    def stop_after_update_two(self):
        row = iterate(self)
        if self.update == 2:
            os.kill(os.getpid(), signal.SIGINT)  # as Ctrl-C would, during update 2
        return row

    monkeypatch.setattr(trainer.Trainer, "iterate", stop_after_update_two)
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", stopped, *args]) == 130
    assert [row["update"] for row in _metrics_rows(stopped)] == ["1", "2"]
    assert not any(value for key, value in _metrics_rows(stopped)[1].items() if key.startswith("eval_"))
    monkeypatch.setattr(trainer.Trainer, "iterate", iterate)
    assert train_main(["--resume", stopped]) == 0
    assert _metrics_rows(stopped) == _metrics_rows(straight)
    for name in ("latest.pt", "best.pt"):
        assert _same(_weights(f"{stopped}/{name}"), _weights(f"{straight}/{name}")), name
    assert load_checkpoint(f"{stopped}/best.pt")["update"] == load_checkpoint(f"{straight}/best.pt")["update"]


def test_a_resume_with_another_best_metric_starts_its_best_again(tmp_path):
    """The best against the old opponent was kept: best.pt stayed the old opponent's and no result against the
    new one could replace it, while the summary called it the best against the new one."""
    run = str(tmp_path / "run")
    args = ["eval_every=1", "eval_games=6", "eval_opponents=[random,greedy]", "torch_threads=1", "tensorboard=false",
            "anneal_lr=false", "checkpoint_minutes=0"]
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *args, "best_metric=random",
                       "total_timesteps=2048"]) == 0
    best_against_random = load_checkpoint(f"{run}/latest.pt")["trainer"]["best"]
    assert train_main(["--resume", run, "best_metric=greedy", "total_timesteps=3072"]) == 0
    greedy = float(_metrics_rows(run)[2]["eval_greedy_win"])
    assert greedy < best_against_random  # else the old best would have been replaced anyway
    assert load_checkpoint(f"{run}/latest.pt")["trainer"]["best"] == greedy
    assert load_checkpoint(f"{run}/best.pt")["update"] == 3


def test_a_resumed_run_stopped_early_says_its_policy_file_is_from_before(tmp_path, capsys, monkeypatch):
    """A finished run resumed for more, then stopped, keeps the earlier end's policy.pt: ppo:RUN/policy.pt
    played it without a word while latest.pt was far ahead."""
    import training.loop

    run = str(tmp_path / "run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *FAST]) == 0

    class StoppedAtOnce(training.loop.StopRequest):
        def __init__(self):
            super().__init__()
            self.requested = True  # as if Ctrl-C came during the first update

    monkeypatch.setattr(training.loop, "StopRequest", StoppedAtOnce)
    capsys.readouterr()
    assert train_main(["--resume", run, "total_timesteps=8192"]) == 130
    assert f"note: {os.path.join(run, 'policy.pt')} is the policy of an earlier end of this run" in \
        capsys.readouterr().err
