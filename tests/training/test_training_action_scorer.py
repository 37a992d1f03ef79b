"""The shared action scorer (``action_width``): its inputs, its packed and full forms, the numpy agent's copy,
function-preserving warm starts and its config and checkpoint errors."""

import numpy as np
import pytest
import torch

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.agent import load_policy
from allfives_env.agents.ppo.features import PolicyInput, action_blocks, feature_size
from allfives_env.agents.ppo.network import PolicyNet
from allfives_env.env.encoders import default_layout
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.vector import VectorAllFives
from training.checkpoint import CheckpointError, export_policy
from training.cli import main
from training.config import ConfigError, load_config
from training.trainer import Trainer

FAST = ["eval_every=0", "torch_threads=1", "total_timesteps=2048", "num_envs=16", "num_steps=64", "minibatch_size=256",
        "checkpoint_minutes=0", "hidden_sizes=[32,32]"]


def positions(num_players, features, count=64, seed=0):
    """Real policy inputs and legal masks (bool) from random play with the batched env."""
    env = VectorAllFives(count, num_players=num_players)
    out = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(5):  # a few random moves so the layouts are not empty
        noise = rng.random(out.mask.shape) * (out.mask > 0)
        out = env.step(noise.argmax(axis=1))
    policy_input = PolicyInput(features, num_players, env.config.divisor)
    return policy_input(out.obs, out.mask), out.mask > 0


def scorer_net(obs_dim, features, num_players, seed=0, depth=1):
    torch.manual_seed(seed)
    net = PolicyNet(obs_dim, [32], action_width=8, action_inputs=action_blocks(features, num_players),
                    action_depth=depth)
    with torch.no_grad():  # the output layers start at zero; give them weights so the scorer shows
        net.action_out.weight.normal_()
        net.action_out.bias.normal_()
        if depth == 2:
            net.action_deep_out.weight.normal_()
    return net


def test_action_blocks_are_the_placement_aligned_inputs():
    """Block 0 is the observation's placement points (hand-checked offset), the rest are the derived blocks."""
    layout = default_layout(4)
    assert action_blocks("none", 4) == [layout.offset("placement_points")]
    blocks = action_blocks("reply_control", 4)
    assert blocks == [layout.offset("placement_points"), layout.size, layout.size + DRAW, layout.size + 2 * DRAW]
    assert blocks[-1] + DRAW == layout.size + feature_size("reply_control")
    inputs, mask = positions(4, "reply_control")
    # every action-aligned value of an illegal placement is zero (the blocks are per placement, not per tile)
    for start in blocks:
        block = inputs[:, start:start + DRAW]
        assert not np.any(block[~mask[:, :DRAW]])
    assert np.any(inputs[:, blocks[0]:blocks[0] + DRAW] > 0)  # some placements score


@pytest.mark.parametrize("num_players,features,depth", [(2, "none", 1), (3, "reply_control", 1), (4, "lookahead", 1),
                                                        (4, "reply_control", 2)])
def test_packed_scoring_of_legal_placements_equals_the_full_form(num_players, features, depth):
    inputs, mask = positions(num_players, features)
    net = scorer_net(inputs.shape[1], features, num_players, depth=depth)
    x, m = torch.from_numpy(inputs), torch.from_numpy(mask)
    full, value_full = net(x)
    packed, value_packed = net(x, m)
    assert torch.allclose(full[m], packed[m], atol=1e-5)
    assert torch.equal(value_full, value_packed)
    # the scorer changes the logits (it is not silently off) and leaves draw and pass alone
    plain = PolicyNet(inputs.shape[1], [32])
    plain.load_state_dict({k: v for k, v in net.state_dict().items() if not k.startswith("action_")})
    base, _ = plain(x)
    assert not torch.allclose(base[:, :DRAW], full[:, :DRAW])
    assert torch.equal(base[:, DRAW:], full[:, DRAW:])


def test_one_scorer_shared_by_every_placement_indexed_by_tile_and_slot():
    """Moving tile t's embedding changes the logits of actions 4t..4t+3 only; slot s's, those of 4u+s."""
    inputs, _ = positions(4, "none", count=8)
    net = scorer_net(inputs.shape[1], "none", 4)
    x = torch.from_numpy(inputs)
    before, _ = net(x)
    with torch.no_grad():
        net.action_tile[9] += 1.0
    changed = (net(x)[0] != before).any(0).nonzero().flatten().tolist()
    assert changed == [36, 37, 38, 39]
    before, _ = net(x)
    with torch.no_grad():
        net.action_slot[2] += 1.0
    changed = (net(x)[0] != before).any(0).nonzero().flatten().tolist()
    assert changed == list(range(2, DRAW, 4))


@pytest.mark.parametrize("depth", [1, 2])
def test_numpy_agent_computes_the_same_logits(tmp_path, depth):
    """ppo:PATH runs the network in numpy; with a scorer (one or two layers) its legal logits match torch's."""
    inputs, mask = positions(4, "reply_control")
    net = scorer_net(inputs.shape[1], "reply_control", 4, depth=depth)
    path = str(tmp_path / "scorer.pt")
    rules = load_policy("checkpoints/ppo_4p.pt")[1]
    export_policy(path, net, rules, features="reply_control")
    agent = make_agent(f"ppo:{path}")
    reference, _ = net(torch.from_numpy(inputs))
    for row in range(len(inputs)):
        legal = np.flatnonzero(mask[row])
        got = agent.logits(inputs[row], legal)
        np.testing.assert_allclose(got[legal], reference[row, legal].detach().numpy(), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(agent.logits(inputs[row])[:DRAW], reference[row, :DRAW].detach().numpy(),
                                   rtol=1e-4, atol=1e-4)  # without legal: every placement scored


def test_scorer_added_by_init_from_starts_as_the_file_policy(tmp_path, capsys):
    """init_from a policy without a scorer: the new scorer's output starts at zero, so the logits match."""
    plain = tmp_path / "plain"
    assert main(["--config", "configs/smoke.yaml", "--run-dir", str(plain), *FAST]) == 0
    trainer = Trainer(load_config("configs/smoke.yaml", [*FAST, "action_width=16",
                                                         f"init_from={plain}/policy.pt"]), str(tmp_path / "scored"))
    source, _, _ = load_policy(str(plain / "policy.pt"))
    inputs, mask = positions(2, "none")
    x = torch.from_numpy(inputs)
    with torch.no_grad():
        assert torch.allclose(trainer.net(x, torch.from_numpy(mask))[0][torch.from_numpy(mask)],
                              source(x)[0][torch.from_numpy(mask)], atol=1e-5)
    assert trainer.net.action_width == 16
    # a narrower scorer cannot be the start (a wider one can: the test below)
    scored = tmp_path / "scored_run"
    assert main(["--config", "configs/smoke.yaml", "--run-dir", str(scored), *FAST, "action_width=16"]) == 0
    with pytest.raises(CheckpointError, match="action scorer of width 16"):
        Trainer(load_config("configs/smoke.yaml", [*FAST, "action_width=8", f"init_from={scored}/policy.pt"]),
                str(tmp_path / "other"))
    # it plays in the arena and its record keeps the scorer
    net, _, _ = load_policy(str(scored / "policy.pt"))
    assert net.action_width == 16 and net.action_inputs == tuple(action_blocks("none", 2))
    # changing the width on resume is an incompatible checkpoint
    assert main(["--resume", str(scored), "action_width=8", "total_timesteps=4096"]) == 2
    assert "incompatible with this config (action_width: checkpoint 16 vs config 8)" in capsys.readouterr().err


def test_init_from_widens_the_scorer_without_changing_the_policy(tmp_path):
    """A 16-wide scorer started from an 8-wide one (with non-zero output weights): the same logits and value;
    the new units learn (their input weights are not all zero)."""
    from allfives_env.rules.config import RulesConfig

    cfg = load_config("configs/smoke.yaml", [*FAST, "action_width=16", f"init_from={tmp_path / 'narrow.pt'}"])
    inputs, mask = positions(2, cfg.features)
    torch.manual_seed(3)
    source = PolicyNet(inputs.shape[1], cfg.hidden_sizes, action_width=8, action_inputs=action_blocks(cfg.features, 2))
    with torch.no_grad():  # a scorer that counts: non-zero output weights
        source.action_out.weight.normal_()
        source.action_out.bias.normal_()
    export_policy(str(tmp_path / "narrow.pt"), source, RulesConfig.from_options(num_players=2), features=cfg.features)
    trainer = Trainer(cfg, str(tmp_path / "wide"))
    x, m = torch.from_numpy(inputs), torch.from_numpy(mask)
    with torch.no_grad():
        wide_logits, wide_value = trainer.net(x, m)
        old_logits, old_value = source(x, m)
    assert trainer.net.action_width == 16
    assert torch.allclose(wide_logits[m], old_logits[m], atol=1e-5)
    assert torch.allclose(wide_value, old_value, atol=1e-5)
    assert trainer.net.action_context.weight[8:].abs().sum() > 0  # the new units have inputs to learn from


def test_init_from_deepens_the_scorer_without_changing_the_policy(tmp_path):
    """A one-layer 8-wide scorer starts a two-layer 16-wide one: the same logits (the second layer's output
    starts at zero, its input weights do not); a two-layer file cannot start a one-layer run."""
    from allfives_env.rules.config import RulesConfig

    cfg = load_config("configs/smoke.yaml", [*FAST, "action_width=16", "action_depth=2",
                                             f"init_from={tmp_path / 'shallow.pt'}"])
    inputs, mask = positions(2, cfg.features)
    source = PolicyNet(inputs.shape[1], cfg.hidden_sizes, action_width=8, action_inputs=action_blocks(cfg.features, 2))
    with torch.no_grad():
        source.action_out.weight.normal_()
    export_policy(str(tmp_path / "shallow.pt"), source, RulesConfig.from_options(num_players=2), features=cfg.features)
    trainer = Trainer(cfg, str(tmp_path / "deep"))
    x, m = torch.from_numpy(inputs), torch.from_numpy(mask)
    with torch.no_grad():
        assert torch.allclose(trainer.net(x, m)[0][m], source(x, m)[0][m], atol=1e-5)
    assert trainer.net.action_depth == 2 and trainer.net.spec()["action_depth"] == 2
    assert trainer.net.action_deep.weight.abs().sum() > 0 and not trainer.net.action_deep_out.weight.any()
    export_policy(str(tmp_path / "deep.pt"), trainer.net, RulesConfig.from_options(num_players=2), features=cfg.features)
    shallow_cfg = load_config("configs/smoke.yaml", [*FAST, "action_width=16", f"init_from={tmp_path / 'deep.pt'}"])
    with pytest.raises(CheckpointError, match="action scorer of depth 2"):
        Trainer(shallow_cfg, str(tmp_path / "other"))


def test_action_depth_is_one_or_two():
    with pytest.raises(ConfigError, match="action_depth"):
        load_config("configs/smoke.yaml", ["action_depth=3"])
    with pytest.raises(ConfigError, match="2 only with action_width > 0"):  # a second layer of no scorer
        load_config("configs/smoke.yaml", ["action_depth=2", "action_width=0"])
    with pytest.raises(ValueError, match="action_depth"):
        PolicyNet(300, [8], action_width=4, action_inputs=[0], action_depth=0)


def test_action_width_must_not_be_negative():
    with pytest.raises(ConfigError, match="action_width"):
        load_config("configs/smoke.yaml", ["action_width=-1"])


def test_scorer_inputs_must_lie_inside_the_input():
    with pytest.raises(ValueError, match="action_inputs"):
        PolicyNet(100, [8], action_width=4, action_inputs=[50])
    with pytest.raises(ValueError, match="action_inputs"):
        PolicyNet(300, [8], action_width=4, action_inputs=[])
    assert NUM_ACTIONS - 2 == DRAW


def test_init_from_reads_a_shipped_file_from_any_directory(tmp_path, monkeypatch):
    """init_from=checkpoints/ppo_2p.pt, as ppo:PATH, is found from a directory without it: the trainer's
    network starts out computing the shipped policy."""
    from allfives_env.agents.registry import shipped_file

    monkeypatch.chdir(tmp_path)
    cfg = load_config("configs/ppo_2p.yaml", ["eval_every=0", "torch_threads=1", "checkpoint_minutes=0",
                                               "init_from=checkpoints/ppo_2p.pt"])
    trainer = Trainer(cfg, str(tmp_path / "run"))
    shipped, _, _ = load_policy(shipped_file("checkpoints/ppo_2p.pt"))
    inputs, mask = positions(2, cfg.features)
    x, m = torch.from_numpy(inputs), torch.from_numpy(mask)
    with torch.no_grad():
        assert torch.allclose(trainer.net(x, m)[0][m], shipped(x, m)[0][m], atol=1e-5)
