"""Masking and the PPO loss: illegal actions are never sampled, entropy is over legal actions, greedy is exact; the loss by hand."""

from types import SimpleNamespace

import numpy as np
import pytest
import torch

from allfives_env.agents.ppo.network import PolicyNet, entropy_of_log_probs, masked_logits
from allfives_env.rules.actions import NUM_ACTIONS
from training.rollout import Batch, random_actions, sample_actions
from training.update import evaluate_actions, ppo_update


def test_illegal_actions_are_never_sampled_even_with_huge_logits():
    rng = np.random.default_rng(0)
    B = 2000
    mask = np.zeros((B, NUM_ACTIONS), np.int8)
    for b in range(B):
        mask[b, rng.choice(NUM_ACTIONS, size=rng.integers(1, 6), replace=False)] = 1
    logits = rng.normal(size=(B, NUM_ACTIONS)).astype(np.float32)
    logits[mask == 0] = 1e6  # the network would love an illegal move
    actions, logp = sample_actions(logits, mask, rng)
    assert mask[np.arange(B), actions].all()
    assert np.isfinite(logp).all() and (logp <= 1e-6).all()
    assert mask[np.arange(B), random_actions(mask, rng)].all()


def test_entropy_is_finite_and_zero_with_one_legal_action():
    logits = torch.randn(3, NUM_ACTIONS, requires_grad=True)
    mask = torch.zeros(3, NUM_ACTIONS, dtype=torch.bool)
    mask[0, 5] = True  # one legal action
    mask[1, [1, 2]] = True  # two
    mask[2, :] = True
    ent = entropy_of_log_probs(torch.log_softmax(masked_logits(logits, mask), dim=-1), mask)
    assert torch.isfinite(ent).all()
    assert ent[0].item() == 0.0
    assert 0 < ent[1].item() <= np.log(2) + 1e-6
    assert ent[2].item() <= np.log(NUM_ACTIONS) + 1e-6
    ent.sum().backward()
    assert torch.isfinite(logits.grad).all()


def test_update_reapplies_the_stored_masks():
    net = PolicyNet(10, [16])
    obs = torch.randn(4, 10)
    mask = torch.zeros(4, NUM_ACTIONS, dtype=torch.bool)
    mask[:, 112] = True
    mask[0, :3] = True
    actions = torch.tensor([1, 112, 112, 112])
    logp, ent, _ = evaluate_actions(net, obs, mask, actions)
    assert logp[1:].abs().max().item() < 1e-6  # the only legal action: probability 1
    assert torch.isfinite(logp).all() and torch.isfinite(ent).all()
    with torch.no_grad():
        logits, _ = net(obs)
    p = torch.softmax(logits[0, [0, 1, 2, 112]], -1)
    assert logp[0].exp().item() == np.float32(p[1].item()) or abs(logp[0].exp().item() - p[1].item()) < 1e-6


def _loss_case(clip_vloss):
    torch.manual_seed(0)
    net = PolicyNet(6, [8])
    obs = torch.randn(4, 6)
    mask = torch.zeros(4, NUM_ACTIONS, dtype=torch.bool)
    mask[:, [3, 7, 112]] = True
    actions = torch.tensor([3, 7, 112, 3])
    with torch.no_grad():
        newlogp, ent, newv = evaluate_actions(net, obs, mask, actions)
    # old log-probs chosen so that the ratios are 1.5, 0.6, 1.1, 0.7 (two outside [0.8, 1.2])
    ratio = torch.tensor([1.5, 0.6, 1.1, 0.7])
    mb = {"obs": obs, "mask": mask, "actions": actions, "logprobs": newlogp - ratio.log(),
          "advantages": torch.tensor([2.0, -1.0, 0.5, 1.0]),
          "values": newv + torch.tensor([0.5, -0.5, 0.0, 0.05]), "returns": newv + torch.tensor([-1.0, 1.0, 0.3, 0.2])}
    cfg = SimpleNamespace(clip_coef=0.2, norm_adv=False, clip_vloss=clip_vloss, ent_coef=0.1, vf_coef=0.5)
    return net, mb, cfg, ratio, ent, newv


@pytest.mark.parametrize("clip_vloss", [True, False])
def test_the_ppo_loss_is_the_clipped_surrogate_minus_entropy_plus_the_value_loss(clip_vloss):
    """By hand: pg = mean(max(-A r, -A clip(r, 1-e, 1+e))); with clip_vloss the value loss is the larger of the
    plain and the clipped squared errors (the new value kept within e of the stored one); loss =
    pg - ent_coef * entropy + vf_coef * v_loss (the entropy is a bonus, so it lowers the loss)."""
    from training.update import ppo_loss

    net, mb, cfg, ratio, ent, newv = _loss_case(clip_vloss)
    A = mb["advantages"]
    pg = torch.max(-A * ratio, -A * ratio.clamp(0.8, 1.2)).mean()
    assert pg.item() == pytest.approx(((-2.0 * 1.2) + (1.0 * 0.8) + (-0.5 * 1.1) + (-1.0 * 0.7)) / 4, abs=1e-5)
    R, V = mb["returns"], mb["values"]
    plain = (newv - R) ** 2
    if clip_vloss:
        clipped = (V + (newv - V).clamp(-0.2, 0.2) - R) ** 2
        v_loss = 0.5 * torch.max(plain, clipped).mean()
        assert v_loss.item() > 0.5 * plain.mean().item() + 1e-4  # the clipped error counts here
    else:
        v_loss = 0.5 * plain.mean()
    loss, stats = ppo_loss(net, mb, cfg)
    assert stats["pg_loss"] == pytest.approx(pg.item(), abs=1e-5)
    assert stats["v_loss"] == pytest.approx(v_loss.item(), abs=1e-5)
    assert stats["entropy"] == pytest.approx(ent.mean().item(), abs=1e-5) and stats["entropy"] > 0
    assert loss.item() == pytest.approx((pg - 0.1 * ent.mean() + 0.5 * v_loss).item(), abs=1e-5)
    assert stats["clipfrac"] == pytest.approx(0.75)  # 1.5, 0.6 and 0.7 lie outside [0.8, 1.2]


@pytest.mark.parametrize("offset, scale, expected", [(0.25, 1.0, 1.0), (0.0, 0.0, 0.0), (0.0, 0.5, 0.75)])
def test_explained_variance_is_one_minus_the_residual_share_of_the_returns_variance(offset, scale, expected):
    """EV = 1 - Var(returns - values) / Var(returns), from the rollout's stored values: values off by a
    constant explain everything (1), zeros nothing (0), half the returns three quarters (the residual is
    half the returns: a quarter of the variance). Catches (update.py: ``np.var(y - v)`` -> ``np.var(v)``)."""
    torch.manual_seed(0)
    net = PolicyNet(6, [8])
    n = 8
    mask = np.zeros((n, NUM_ACTIONS), np.bool_)
    mask[:, [3, 7, 112]] = True
    returns = np.linspace(-1.0, 1.0, n).astype(np.float32)
    values = (returns * scale + offset).astype(np.float32)
    zeros = np.zeros(n, np.float32)
    batch = Batch(np.random.default_rng(0).normal(size=(n, 6)).astype(np.float32), mask, np.full(n, 3, np.int64),
                  np.full(n, -1.1, np.float32), values, zeros, returns, zeros, np.zeros(n, np.bool_),
                  np.zeros(n, np.int64), np.arange(n))
    cfg = SimpleNamespace(clip_coef=0.2, norm_adv=False, clip_vloss=False, ent_coef=0.0, vf_coef=0.5,
                          minibatch_size=n, update_epochs=1, max_grad_norm=0.5, target_kl=None)
    out = ppo_update(net, torch.optim.SGD(net.parameters(), lr=0.0), batch, cfg, np.random.default_rng(0))
    assert out["explained_variance"] == pytest.approx(expected, abs=1e-6)
    assert out["minibatches"] == 1 and out["early_stop"] == 0.0


def test_a_loss_that_is_not_finite_stops_the_update_before_the_weights_change():
    """A NaN or infinite loss stepped every weight to NaN, and the next rollout failed with 'action 0 is not
    legal' (ent_coef=1e300 did it): the update stops in one line and the weights stay as they were."""
    from training.config import ConfigError

    torch.manual_seed(0)
    net = PolicyNet(6, [8])
    n = 8
    mask = np.zeros((n, NUM_ACTIONS), np.bool_)
    mask[:, [3, 7]] = True
    zeros = np.zeros(n, np.float32)
    returns = np.full(n, np.inf, np.float32)  # as an overflowed reward scale leaves them
    batch = Batch(np.random.default_rng(0).normal(size=(n, 6)).astype(np.float32), mask, np.full(n, 3, np.int64),
                  np.full(n, -0.7, np.float32), zeros, zeros, returns, zeros, np.zeros(n, np.bool_),
                  np.zeros(n, np.int64), np.arange(n))
    cfg = SimpleNamespace(clip_coef=0.2, norm_adv=False, clip_vloss=False, ent_coef=0.0, vf_coef=0.5,
                          minibatch_size=n, update_epochs=1, max_grad_norm=0.5, target_kl=None)
    before = [p.detach().clone() for p in net.parameters()]
    with pytest.raises(ConfigError, match=r"the PPO loss is inf \(not a finite number\): lower learning_rate"):
        ppo_update(net, torch.optim.SGD(net.parameters(), lr=0.1), batch, cfg, np.random.default_rng(0))
    assert all(torch.equal(a, b) for a, b in zip(before, net.parameters()))
