"""Scratch: fit a student to champion labels. python fit.py OUT.pt T EPOCHS LR INIT|wide LAB.npz...
T: target temperature in points (0: the champion's argmax, one-hot)."""
import sys
import time

import numpy as np
import torch

from allfives_env.agents.ppo.network import PolicyNet, masked_logits
from allfives_env.agents.ppo.policy_file import build_policy, read_checkpoint, policy_features
from allfives_env.rules.config import RulesConfig
from training.checkpoint import export_policy

out, T, epochs, lr, init = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
files = sys.argv[6:]
torch.set_num_threads(2)
torch.manual_seed(0)
data = [np.load(f) for f in files]
X = torch.from_numpy(np.concatenate([d["inputs"] for d in data]))
M = torch.from_numpy(np.concatenate([d["masks"] for d in data])).bool()
V = np.concatenate([d["values"] for d in data])
G = np.concatenate([d["game"] + 100000 * i for i, d in enumerate(data)])
V = torch.from_numpy(np.where(np.isnan(V), -1e9, V)).float()
held = torch.from_numpy(G % 10 == 0)
best = V.argmax(-1)
if T > 0:
    target = torch.softmax(V / T, -1) * M
else:
    target = torch.nn.functional.one_hot(best, V.shape[1]).float()
import os
BASE = os.environ.get("BASE", "checkpoints/ppo_3p.pt")
base = read_checkpoint(BASE)
if init == "wide":
    spec = dict(base["policy"]["net"], hidden_sizes=[256, 256], action_width=128)
    net = PolicyNet(**spec)
else:
    net = build_policy(read_checkpoint(init)["policy"], init)
rules = RulesConfig.from_options(**base["policy"]["rules"])


def report(tag):
    net.eval()
    with torch.no_grad():
        lg = torch.cat([masked_logits(net(X[i:i + 8192], M[i:i + 8192])[0], M[i:i + 8192])
                        for i in range(0, len(X), 8192)])
    pick = lg.argmax(-1)
    agree = (pick == best).float()
    regret = (V.gather(1, best[:, None]) - V.gather(1, pick[:, None]))[:, 0]
    return float(regret[held].mean()), (f"{tag}: agree held {agree[held].mean():.3f} train {agree[~held].mean():.3f}  "
          f"regret held {regret[held].mean():.2f} train {regret[~held].mean():.2f}")


print("rows", len(X), "held", int(held.sum()))
print(report("start")[1], flush=True)
import copy
best_state, best_regret = None, 1e9
sched_total = epochs * ((len(torch.nonzero(~held)) + 511) // 512)
step = 0
opt = torch.optim.Adam(net.parameters(), lr=lr)
rows = torch.nonzero(~held).squeeze(1)
for ep in range(epochs):
    net.train()
    t0 = time.time()
    order = rows[torch.randperm(len(rows))]
    tot = 0.0
    for s in range(0, len(order), 512):
        r = order[s:s + 512]
        lg = masked_logits(net(X[r], M[r])[0], M[r])
        logp = torch.log_softmax(lg, -1)
        loss = -(target[r] * torch.where(M[r], logp, torch.zeros_like(logp))).sum(-1).mean()
        opt.zero_grad()
        loss.backward()
        step += 1
        for g in opt.param_groups:
            g["lr"] = lr * 0.5 * (1 + np.cos(np.pi * step / sched_total))
        opt.step()
        tot += float(loss) * len(r)
    print("loss", tot / len(rows))
    rg, line = report(f"epoch {ep + 1} ({time.time() - t0:.0f}s)")
    print(line, flush=True)
    if rg < best_regret:
        best_regret, best_state = rg, copy.deepcopy(net.state_dict())
net.load_state_dict(best_state)
print("best held regret", best_regret)
export_policy(out, net, rules, extra={"scratch": "champion distill"}, features=policy_features(base["policy"], BASE))
print("wrote", out)
