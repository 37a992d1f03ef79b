"""Scratch: Deep Monte Carlo (DouZero) as a fine-tune of the shipped 4-player policy.

Q(s, a) = V(s) + BETA * (logit(a) - mean of the legal logits): a dueling head on the policy file's own
heads, so the policy that plays argmax Q is the file's most likely action at the start, and the play-time
agent (argmax logits) plays greedy on Q. Actors: epsilon-greedy on Q. Loss: 0.5 (Q(s, a) - G)^2 with G the
Monte Carlo return (gae_lambda=1). Run: python dmc.py --config ... key=value (as python -m training)."""
import os
import sys

import numpy as np
import torch
from torch import nn

import training.rollout as rollout
import training.trainer as trainer
from training.update import to_tensors

EPS = float(os.environ.get("DMC_EPS", "0.05"))
BETA = float(os.environ.get("DMC_BETA", "0.03"))


def eps_greedy(logits, mask, rng):
    legal = mask > 0
    actions = np.where(legal, logits, -np.inf).argmax(axis=1)
    explore = np.flatnonzero(rng.random(len(actions)) < EPS)
    if len(explore):
        actions[explore] = rollout.random_actions(mask[explore], rng)
    return actions, np.zeros(len(actions), np.float32)


def q_values(net, obs, mask):
    logits, value = net(obs, mask)
    count = mask.sum(-1).clamp(min=1)
    mean = torch.where(mask, logits, torch.zeros_like(logits)).sum(-1) / count
    return value.unsqueeze(1) + BETA * (logits - mean.unsqueeze(1)), value


def dmc_update(net, optimizer, batch, cfg, rng, device="cpu"):
    data = to_tensors(batch, device)
    n = len(batch)
    num_mb = max(1, round(n / cfg.minibatch_size))
    totals, count = {"q_loss": 0.0, "v_loss": 0.0, "adv_abs": 0.0}, 0
    for _ in range(cfg.update_epochs):
        perm = torch.from_numpy(rng.permutation(n)).to(device)
        for idx in torch.tensor_split(perm, num_mb):
            mb = {k: v[idx] for k, v in data.items()}
            q, value = q_values(net, mb["obs"], mb["mask"])
            qa = q.gather(1, mb["actions"].unsqueeze(1)).squeeze(1)
            loss = 0.5 * ((qa - mb["returns"]) ** 2).mean()
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            totals["q_loss"] += loss.item()
            totals["v_loss"] += 0.5 * ((value - mb["returns"]) ** 2).mean().item()
            totals["adv_abs"] += (qa - value).abs().mean().item()
            count += 1
    out = {k: v / max(count, 1) for k, v in totals.items()}
    y, v = batch.returns.astype(np.float64), batch.values.astype(np.float64)
    out["explained_variance"] = float(1 - np.var(y - v) / np.var(y)) if np.var(y) > 0 else float("nan")
    out.update(pg_loss=0.0, entropy=0.0, approx_kl=0.0, clipfrac=0.0, early_stop=0.0, minibatches=count)
    return out


rollout.sample_actions = eps_greedy
trainer.ppo_update = dmc_update

if __name__ == "__main__":
    from training.cli import build_parser, run
    sys.exit(run(build_parser().parse_args(sys.argv[1:])))
