"""Weight averaging (``average_from``/``average_every``): the averaged policy is the
equal-weight mean of the scheduled iterates, survives an interrupted-and-resumed run
exactly, is exported at a run's end and by ``training.export --averaged``, and plays."""

import pytest
import torch

from allfives_env.agents.ppo.agent import CheckpointError
from allfives_env.arena.match import run_match
from allfives_env.rules.config import RulesConfig
from training.config import ConfigError, load_config
from training.export import main as export_main
from training.ppo import Trainer
from training.ppo import main as train_main

FAST = ["eval_every=0", "tensorboard=false", "anneal_lr=false", "checkpoint_minutes=0"]


def _weights(path):
    return torch.load(path, map_location="cpu", weights_only=True)["policy"]["state_dict"]


def test_the_average_is_the_mean_of_the_scheduled_iterates(tmp_path):
    # from update 1, every 2nd: updates 1 and 3 join the mean, updates 2 and 4 do not
    cfg = load_config("configs/smoke.yaml", [*FAST, "total_timesteps=4096", "average_from=1", "average_every=2"])
    trainer = Trainer(cfg, str(tmp_path / "run"))
    iterates = []
    for _ in range(4):
        trainer.iterate()
        iterates.append({k: v.detach().clone() for k, v in trainer.net.named_parameters()})
    assert int(trainer.average.n_averaged) == 2
    averaged = dict(trainer.average.module.named_parameters())
    for name, value in averaged.items():
        torch.testing.assert_close(value, (iterates[0][name] + iterates[2][name]) / 2)
    # the iterates moved, so the mean differs from the last one
    assert any(not torch.allclose(averaged[k], iterates[3][k]) for k in averaged)


def test_averaged_policy_is_written_resumes_exactly_and_plays(tmp_path):
    straight, split = str(tmp_path / "straight"), str(tmp_path / "split")
    common = ["--config", "configs/smoke.yaml", *FAST, "average_from=2", "average_every=1"]
    assert train_main(["--run-dir", straight, *common, "total_timesteps=4096"]) == 0
    assert train_main(["--run-dir", split, *common, "total_timesteps=3072"]) == 0  # interrupted after 3 updates
    assert train_main(["--resume", split, "total_timesteps=4096"]) == 0
    a, b = _weights(f"{straight}/averaged_policy.pt"), _weights(f"{split}/averaged_policy.pt")
    assert a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)
    extra = torch.load(f"{straight}/averaged_policy.pt", map_location="cpu", weights_only=True)["extra"]
    assert extra["averaged_snapshots"] == 3 and extra["update"] == 4  # updates 2, 3 and 4
    final = _weights(f"{straight}/policy.pt")
    assert any(not torch.equal(a[k], final[k]) for k in a)
    # the same mean, exported from the training checkpoint
    assert export_main([f"{straight}/latest.pt", str(tmp_path / "avg.pt"), "--averaged"]) == 0
    c = _weights(str(tmp_path / "avg.pt"))
    assert all(torch.equal(a[k], c[k]) for k in a)
    match = run_match(RulesConfig(num_players=2, target=60), [f"ppo:{straight}/averaged_policy.pt", "random"], 4, seed=3)
    assert match.to_dict()["agents"][0]["games"] == 4


def test_averaging_errors(tmp_path, capsys):
    with pytest.raises(ConfigError, match="average_every"):
        load_config("configs/smoke.yaml", ["average_from=2", "average_every=0"])
    with pytest.raises(ConfigError, match="average_from"):
        load_config("configs/smoke.yaml", ["average_from=-1"])
    run = str(tmp_path / "plain")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *FAST, "total_timesteps=2048"]) == 0
    assert export_main([f"{run}/latest.pt", str(tmp_path / "x.pt"), "--averaged"]) == 2
    assert "holds no weight average" in capsys.readouterr().err
    from training.export import export

    with pytest.raises(CheckpointError, match="policy export"):
        export(f"{run}/policy.pt", str(tmp_path / "y.pt"), averaged=True)
