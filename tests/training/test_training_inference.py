"""features=lookahead_infer in training: the collector feeds the greedy exclusions of an
ExclusionTracker, keeps them in its checkpoint state (exact resume), and the policy file plays
with them in the arena."""

import numpy as np
import pytest
import torch

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.agent import read_checkpoint
from allfives_env.agents.ppo.features import PolicyInput
from training.cli import main as train_main
from training.config import load_config
from training.trainer import Trainer

FAST = ["eval_every=0", "torch_threads=1", "tensorboard=false", "anneal_lr=false", "checkpoint_minutes=0", "num_players=4",
        "target=100", "features=lookahead_infer", "action_width=16", "hidden_sizes=[32,32]", "opp_greedy=0.7",
        "opp_self=0.1", "opp_pool=0.1", "opp_random=0.1"]


def _weights(path):
    return torch.load(path, map_location="cpu", weights_only=True)["policy"]["state_dict"]


def test_collector_feeds_the_exclusions(tmp_path):
    features = "lookahead_infer"
    cfg = load_config("configs/smoke.yaml", [*FAST, "total_timesteps=1024"])  # FAST sets the features
    assert cfg.features == features
    trainer = Trainer(cfg, str(tmp_path / "run"))
    collector = trainer.collector
    assert collector.exclusions is not None
    batch = collector.collect(trainer.net)
    plain = PolicyInput(features[:-len("_infer")], 4, collector.config.divisor)
    obs_dim = plain.obs_dim
    stored = collector.buffer.obs[collector.buffer.valid]
    masks = collector.buffer.mask[collector.buffer.valid].astype(np.int8)
    again = plain(np.ascontiguousarray(stored[:, :obs_dim]), masks)
    differs = np.any(again[:, obs_dim:] != stored[:, obs_dim:], axis=1)
    assert differs.mean() > 0.05  # the stored inputs used exclusions the observation alone lacks
    assert np.array_equal(again[:, :obs_dim], stored[:, :obs_dim])
    assert len(batch.actions) > 0


def test_exact_resume_and_the_policy_plays_with_inference(tmp_path):
    straight, resumed = str(tmp_path / "straight"), str(tmp_path / "resumed")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", straight, *FAST, "total_timesteps=4096"]) == 0
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", resumed, *FAST, "total_timesteps=2048"]) == 0
    assert train_main(["--resume", resumed, "total_timesteps=4096"]) == 0
    a, b = _weights(f"{straight}/latest.pt"), _weights(f"{resumed}/latest.pt")
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert read_checkpoint(f"{straight}/policy.pt")["policy"]["features"] == "lookahead_infer"
    assert make_agent(f"ppo:{straight}/policy.pt").infer == "off"  # no opponent model unless asked for
    agent = make_agent(f"ppo:{straight}/policy.pt,infer=greedy")
    assert agent.infer == "greedy"
    assert make_agent(f"ppo:{straight}/policy.pt,infer=off").features == "lookahead"


def test_infer_option_of_the_ppo_agent(tmp_path):
    """A loaded policy assumes nothing about its opponents: a lookahead_infer file plays its inputs as
    lookahead unless ``infer=greedy`` asks for the exclusions; other feature sets refuse ``infer=greedy``,
    unknown values are refused with the reason."""
    assert make_agent("ppo:checkpoints/ppo_3p.pt").infer == "off"
    with pytest.raises(ValueError, match="infer=greedy needs lookahead features"):  # a reply_control file
        make_agent("ppo:checkpoints/champion_value_3p.pt,infer=greedy")
    four = make_agent("ppo:checkpoints/ppo_4p.pt")  # opponent-agnostic by default
    assert (four.features, four.infer) == ("lookahead", "off")
    assert make_agent("ppo:checkpoints/ppo_4p.pt,infer=off").features == "lookahead"
    modelled = make_agent("ppo:checkpoints/ppo_4p.pt,infer=greedy")
    assert (modelled.features, modelled.infer) == ("lookahead_infer", "greedy")
    plain = str(tmp_path / "plain")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", plain, "eval_every=0", "tensorboard=false",
                       "total_timesteps=1024"]) == 0
    with pytest.raises(ValueError, match="infer=greedy needs lookahead features"):
        make_agent(f"ppo:{plain}/policy.pt,infer=greedy")
    with pytest.raises(ValueError, match="infer='maybe' is not allowed"):
        make_agent("ppo:checkpoints/ppo_4p.pt,infer=maybe")
