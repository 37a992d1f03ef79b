import sys, time; sys.path.insert(0, "/tmp/exp")
import numpy as np
from prollout import net_arrays, policy_logit_argmax
from allfives_env.agents.ppo.agent import _load
from allfives_env.agents.ppo import features as pf
from allfives_env.vector import VectorAllFives
from allfives_env.vector.batched import random_legal_actions, make_rng_state
rules, features, policy = _load("checkpoints/ppo_2p.pt")
net = net_arrays(policy)
pin = pf.PolicyInput(features, 2, rules.divisor)
venv = VectorAllFives(512, 2); out = venv.reset(seed=3); rs = make_rng_state(5, 512)
for _ in range(6): out = venv.step(random_legal_actions(out.mask, rs))
nz = np.zeros(pin.size, np.int64); h1 = np.zeros(128); h2 = np.zeros(128); ctx = np.zeros(64)
x = pin(out.obs, out.mask)
t = time.perf_counter(); x = pin(out.obs, out.mask); dt = time.perf_counter() - t
print("features per position us", dt / 512 * 1e6)
policy_logit_argmax(x[0], out.mask[0], net, nz, h1, h2, ctx)
t = time.perf_counter()
for b in range(512): policy_logit_argmax(x[b], out.mask[b], net, nz, h1, h2, ctx)
print("net per position us", (time.perf_counter() - t) / 512 * 1e6, "nonzeros mean", (x != 0).sum(1).mean(), "legal", out.mask.sum(1).mean())
