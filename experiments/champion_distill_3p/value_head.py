"""Scratch: fit the value head alone (ridge on the trunk's features) to the champion's return
(training.value_fit's games and targets); the policy stays bit for bit.
python value_head.py SOURCE TARGET GAMES SEED"""
import sys
import time

import numpy as np
import torch

from allfives_env.agents.ppo.policy_file import build_policy, policy_features, read_checkpoint
from allfives_env.rules.config import RulesConfig
from training.checkpoint import export_policy
from training.value_fit import HELD_OUT_EVERY, collect, explained_variance

src, dst, games, seed = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
record = read_checkpoint(src)
rules = RulesConfig.from_options(**record["policy"]["rules"])
t0 = time.time()
data = collect(src, rules, games, seed, workers=2)
print("rows", len(data["returns"]), f"{time.time() - t0:.0f} s", flush=True)
torch.set_num_threads(2)
net = build_policy(record["policy"], src)
x = torch.from_numpy(data["inputs"])
with torch.no_grad():
    h = torch.cat([net.trunk(x[i:i + 8192]) for i in range(0, len(x), 8192)]).double().numpy()
    v0 = torch.cat([net(x[i:i + 8192])[1] for i in range(0, len(x), 8192)]).numpy()
r = data["returns"].astype(np.float64)
held = data["game"] % HELD_OUT_EVERY == 0
H = np.hstack([h, np.ones((len(h), 1))])
best = None
for lam in (1e-2, 1e-1, 1.0, 10.0, 100.0):
    A = H[~held].T @ H[~held] + lam * np.eye(H.shape[1])
    w = np.linalg.solve(A, H[~held].T @ r[~held])
    ev = explained_variance(H[held] @ w, r[held])
    print(f"lambda {lam}: held-out explained variance {ev:.4f}", flush=True)
    if best is None or ev > best[0]:
        best = (ev, lam, w)
ev, lam, w = best
print(f"before {explained_variance(v0[held], r[held]):.4f}, after {ev:.4f} (lambda {lam})")
with torch.no_grad():
    net.value_head.weight.copy_(torch.from_numpy(w[:-1]).float()[None, :])
    net.value_head.bias.copy_(torch.tensor([w[-1]], dtype=torch.float32))
extra = dict(read_checkpoint(src).get("extra", {}), value_head="ridge on the trunk's features to the champion's "
             f"return, {games} games from deal seed {seed}, lambda {lam}, held-out explained variance {ev:.4f}")
export_policy(dst, net, rules, extra=extra, features=policy_features(record["policy"], src))
print("wrote", dst)
