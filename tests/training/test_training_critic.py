"""The privileged critic (``critic=privileged``, training/critic.py): what it reads,
that acting never depends on it, that its warm-up leaves the policy alone, and
that it resumes exactly."""

import pickle

import numpy as np
import pytest
import torch

from allfives_env.agents.ppo.network import PolicyNet
from allfives_env.vector import VectorAllFives
from training.config import ConfigError, load_config
from training.critic import PrivilegedCritic, privileged_size
from training.ppo import main as train_main
from training.rollout import Collector
from training.update import ppo_update

FAST = ["eval_every=0", "tensorboard=false", "anneal_lr=false", "checkpoint_minutes=0"]


def _bits(tiles):
    out = np.zeros(28, np.float32)
    out[list(tiles)] = 1.0
    return out


def test_other_hands_are_the_next_seats_hands_in_turn_order():
    env = VectorAllFives(2, num_players=4)
    env.reset(seed=0)
    hands = [[0, 1, 2, 3, 4], [7, 8, 9, 10, 11], [14, 15, 16, 17, 18], [21, 22, 23, 24, 25]]  # R4: 5 each
    boneyard = [5, 6, 12, 13, 19, 20, 26, 27]
    env.set_position([1], [hands], [boneyard], [2])
    got = env.other_hands([1, 1, 1], [0, 2, 3])
    assert got.shape == (3, 3 * 28)
    expected = {0: [1, 2, 3], 2: [3, 0, 1], 3: [0, 1, 2]}  # seat -> the seats after it (R2 turn order)
    for row, seat in enumerate([0, 2, 3]):
        np.testing.assert_array_equal(got[row], np.concatenate([_bits(hands[s]) for s in expected[seat]]))


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_other_hands_complete_the_movers_view_in_random_games(num_players):
    """Own hand, other hands and played tiles never overlap; the other hands' sizes are the
    observation's hand sizes; with the boneyard they make the 28 tiles (R1)."""
    B = 16
    env = VectorAllFives(B, num_players=num_players, reward="zero_sum", auto_forced=True)
    out = env.reset(seed=num_players)
    rng = np.random.default_rng(1)
    for _ in range(150):
        views = env.views(out.obs)
        other = env.other_hands(np.arange(B), out.to_move).reshape(B, num_players - 1, 28)
        own = views["hand"] > 0
        played = views["played_by"].reshape(B, num_players, 28).sum(axis=1) > 0
        counts = own.astype(int) + other.sum(axis=1) + played
        assert counts.max() <= 1
        np.testing.assert_allclose(other.sum(axis=2), np.rint(views["hand_sizes"][:, 1:] * 10))
        noise = rng.random(out.mask.shape) * (out.mask > 0)
        out = env.step(noise.argmax(axis=1))


def _collector_and_net(extra):
    cfg = load_config("configs/smoke.yaml", [*FAST, "num_players=4", *extra])
    torch.manual_seed(0)
    collector = Collector(cfg)
    return cfg, collector, PolicyNet(collector.obs_dim, cfg.hidden_sizes)


def test_actions_never_depend_on_the_critic():
    """Same seed, same policy: a shared-critic and a privileged-critic rollout play the same
    games (same inputs, actions and probabilities); only the values differ."""
    _, shared, net = _collector_and_net([])
    cfg, privileged, _ = _collector_and_net(["critic=privileged"])
    critic = PrivilegedCritic(privileged.obs_dim + privileged.privileged_dim, cfg.critic_hidden_sizes)
    assert privileged.obs_dim == shared.obs_dim  # the policy reads nothing more
    a = shared.collect(net)
    b = privileged.collect(net, critic)
    np.testing.assert_array_equal(a.obs, b.obs)
    np.testing.assert_array_equal(a.actions, b.actions)
    np.testing.assert_array_equal(a.logprobs, b.logprobs)
    assert a.privileged is None and b.privileged.shape == (len(b), privileged_size(4))
    assert not np.allclose(a.values, b.values)
    # the game-type one-hot is exact
    np.testing.assert_array_equal(b.privileged[:, -4:].sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="pass the critic"):
        privileged.collect(net)


def _params(module):
    return {k: v.detach().clone() for k, v in module.state_dict().items()}


def test_warmup_trains_the_critic_alone_and_the_value_head_is_left_alone():
    cfg, collector, net = _collector_and_net(["critic=privileged"])
    critic = PrivilegedCritic(collector.obs_dim + collector.privileged_dim, cfg.critic_hidden_sizes)
    policy_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
    critic_opt = torch.optim.Adam(critic.parameters(), lr=1e-3)
    batch = collector.collect(net, critic)
    before_net, before_critic = _params(net), _params(critic)
    ppo_update(net, policy_opt, batch, cfg, np.random.default_rng(0), critic=critic, critic_optimizer=critic_opt,
               train_policy=False)
    after_net, after_critic = _params(net), _params(critic)
    assert all(torch.equal(before_net[k], after_net[k]) for k in before_net)
    assert any(not torch.equal(before_critic[k], after_critic[k]) for k in before_critic)
    ppo_update(net, policy_opt, batch, cfg, np.random.default_rng(0), critic=critic, critic_optimizer=critic_opt)
    moved = _params(net)
    assert not torch.equal(moved["trunk.0.weight"], after_net["trunk.0.weight"])
    # the policy's own value head gets no gradient: the privileged critic replaces it
    assert torch.equal(moved["value_head.weight"], after_net["value_head.weight"])


def test_privileged_runs_resume_exactly(tmp_path):
    a, c = str(tmp_path / "a"), str(tmp_path / "c")
    args = [*FAST, "critic=privileged", "critic_warmup_updates=1"]
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", a, *args, "total_timesteps=2048"]) == 0
    assert train_main(["--resume", a, "total_timesteps=4096"]) == 0
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", c, *args, "total_timesteps=4096"]) == 0
    ta, tc = (torch.load(f"{d}/latest.pt", map_location="cpu", weights_only=False) for d in (a, c))
    for k, v in ta["policy"]["state_dict"].items():
        assert torch.equal(v, tc["policy"]["state_dict"][k]), k
    ca, cc = (pickle.loads(t["trainer"])["critic"] for t in (ta, tc))
    assert all(torch.equal(ca[k], cc[k]) for k in ca)


def test_critic_config_errors(tmp_path, capsys):
    with pytest.raises(ConfigError, match="'critic'.*shared or privileged"):
        load_config("configs/smoke.yaml", ["critic=oracle"])
    with pytest.raises(ConfigError, match="critic_warmup_updates.*privileged"):
        load_config("configs/smoke.yaml", ["critic_warmup_updates=5"])
    run = str(tmp_path / "run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", run, *FAST, "total_timesteps=1024"]) == 0
    assert train_main(["--resume", run, "critic=privileged"]) == 2
    assert "critic" in capsys.readouterr().err
