"""The masked PPO update.

The legal-action masks stored with the rollout are re-applied to the new
logits, so the new log-probabilities and the entropy are those of the policy
over legal actions only (an illegal action has probability 0, and a decision
with one legal action has entropy 0 and ratio 1).
"""

import numpy as np
import torch
from torch import nn

from allfives_env.agents.ppo.network import entropy_of_log_probs, masked_logits

from .config import ConfigError


def evaluate_actions(net, obs, mask, actions):
    """``(log_prob(actions), entropy, value)`` under ``net`` with the masks applied."""
    logits, value = net(obs, mask)
    logp_all = torch.log_softmax(masked_logits(logits, mask), dim=-1)
    logp = logp_all.gather(1, actions.unsqueeze(1)).squeeze(1)
    entropy = entropy_of_log_probs(logp_all, mask)
    return logp, entropy, value


def ppo_loss(net, mb, cfg):
    """The clipped PPO loss of one minibatch (a dict of tensors) and its statistics."""
    newlogp, entropy, newvalue = evaluate_actions(net, mb["obs"], mb["mask"], mb["actions"])
    logratio = newlogp - mb["logprobs"]
    ratio = logratio.exp()
    with torch.no_grad():
        approx_kl = ((ratio - 1) - logratio).mean()
        clipfrac = ((ratio - 1.0).abs() > cfg.clip_coef).float().mean()
    adv = mb["advantages"]
    if cfg.norm_adv and len(adv) > 1:
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - cfg.clip_coef, 1 + cfg.clip_coef)).mean()
    if cfg.clip_vloss:
        v_clipped = mb["values"] + torch.clamp(newvalue - mb["values"], -cfg.clip_coef, cfg.clip_coef)
        v_loss = 0.5 * torch.max((newvalue - mb["returns"]) ** 2, (v_clipped - mb["returns"]) ** 2).mean()
    else:
        v_loss = 0.5 * ((newvalue - mb["returns"]) ** 2).mean()
    ent = entropy.mean()
    loss = pg_loss - cfg.ent_coef * ent + cfg.vf_coef * v_loss
    stats = {"pg_loss": pg_loss.item(), "v_loss": v_loss.item(), "entropy": ent.item(),
             "approx_kl": approx_kl.item(), "clipfrac": clipfrac.item()}
    return loss, stats


def to_tensors(batch, device):
    names = ["obs", "mask", "actions", "logprobs", "values", "advantages", "returns"]
    return {name: torch.from_numpy(getattr(batch, name)).to(device) for name in names}


def ppo_update(net, optimizer, batch, cfg, rng, device="cpu") -> dict:
    """``update_epochs`` passes of minibatch PPO over ``batch``; returns mean statistics.

    Minibatches are drawn with ``rng`` (a numpy Generator), so an update is reproducible."""
    data = to_tensors(batch, device)
    n = len(batch)
    num_mb = max(1, round(n / cfg.minibatch_size))
    totals, count = {}, 0
    stop = False
    for _ in range(cfg.update_epochs):
        perm = torch.from_numpy(rng.permutation(n)).to(device)
        for idx in torch.tensor_split(perm, num_mb):
            mb = {k: v[idx] for k, v in data.items()}
            loss, stats = ppo_loss(net, mb, cfg)
            if not torch.isfinite(loss):  # stepping would make every weight NaN (then no action is legal)
                raise ConfigError(f"the PPO loss is {loss.item()} (not a finite number): lower learning_rate, "
                                  "clip_coef, ent_coef, vf_coef or the reward scales; the weights are left as they were")
            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(net.parameters(), cfg.max_grad_norm)
            optimizer.step()
            for k, v in stats.items():
                totals[k] = totals.get(k, 0.0) + v
            count += 1
        if cfg.target_kl is not None and stats["approx_kl"] > cfg.target_kl:
            stop = True
            break
    out = {k: v / max(count, 1) for k, v in totals.items()}
    y, v = batch.returns.astype(np.float64), batch.values.astype(np.float64)
    var_y = np.var(y)
    out["explained_variance"] = float("nan") if var_y == 0 else float(1 - np.var(y - v) / var_y)
    out["early_stop"] = float(stop)
    out["minibatches"] = count
    return out
