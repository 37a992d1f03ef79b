"""Masking: illegal actions are never sampled, entropy is over legal actions, greedy is exact."""

import numpy as np
import torch

from allfives_env.agents.ppo.network import PolicyNet, masked_entropy
from allfives_env.rules.actions import NUM_ACTIONS
from training.rollout import random_actions, sample_actions
from training.update import evaluate_actions


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
    ent = masked_entropy(logits, mask)
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
