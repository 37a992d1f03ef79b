"""Scratch: ensemble and weight-soup of 3p students; ensemble targets as a label file."""
import json, sys, copy
import numpy as np, torch
sys.path.insert(0, "/work/main")
from training.distill import load_labels, save_labels, HELD_OUT_EVERY
from allfives_env.agents.ppo.agent import NumpyPolicy, load_policy
from training.checkpoint import export_policy

MEMBERS = ["checkpoints/ppo_3p.pt", "/tmp/dl/abcd.pt", "/tmp/dl/final_new.pt", "/tmp/dl/t10.pt", "/tmp/dl/t2.pt"]
labels, meta = load_labels([f"/tmp/dl/lab_{k}.npz" for k in ("a", "b", "c", "d", "d2")])
x, m = labels["inputs"], labels["masks"].astype(bool)
vals = np.where(m, labels["values"], -np.inf)
held = labels["deal_seed"] % HELD_OUT_EVERY == 0
best = vals.argmax(1)

def logsoft(pol):
    out = np.empty(x.shape[0:1] + (m.shape[1],), np.float32)
    for i in range(0, len(x), 20000):
        z = pol.batch_logits(x[i:i+20000], m[i:i+20000]).astype(np.float64)
        z = np.where(m[i:i+20000], z, -np.inf)
        z = z - z.max(1, keepdims=True)
        out[i:i+20000] = z - np.log(np.exp(z).sum(1, keepdims=True))
    return out

def report(name, ls):
    pick = ls.argmax(1)
    agree = pick == best
    regret = vals[np.arange(len(x)), best] - vals[np.arange(len(x)), pick]
    print(f"{name}: held agree {agree[held].mean():.4f} regret {regret[held].mean():.3f} | train agree {agree[~held].mean():.4f}", flush=True)

nets = [load_policy(f) for f in MEMBERS]
total = 0
for f, (net, rules, feat) in zip(MEMBERS, nets):
    ls = logsoft(NumpyPolicy(net)); report(f, ls); total = total + ls
ens = total / len(MEMBERS)
report("ensemble", ens)
soup = copy.deepcopy(nets[0][0])
sd = {k: sum(n[0].state_dict()[k].float() for n in nets) / len(nets) for k in soup.state_dict()}
soup.load_state_dict(sd)
report("soup", logsoft(NumpyPolicy(soup)))
if len(sys.argv) > 1:
    T = 5.0
    new = dict(labels); new["values"] = np.where(m, T * ens, np.nan).astype(np.float32)
    meta = dict(meta); meta["teacher"] = "ensemble:" + "+".join(MEMBERS)
    save_labels(sys.argv[1], new, meta)
    print("wrote", sys.argv[1])
