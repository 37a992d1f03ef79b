import sys; sys.path.insert(0, "/tmp/exp")
import numpy as np
from prollout import net_arrays, policy_logit_argmax
from allfives_env.agents.ppo.agent import _load
from allfives_env.agents.ppo import features as pf
from allfives_env.vector import VectorAllFives
from allfives_env.vector.batched import random_legal_actions, make_rng_state
rules, features, policy = _load("checkpoints/ppo_2p.pt")
net = net_arrays(policy)
pin = pf.PolicyInput(features, 2, rules.divisor)
venv = VectorAllFives(64, 2); out = venv.reset(seed=3); rs = make_rng_state(5, 64)
nz = np.zeros(pin.size, np.int64); h1 = np.zeros(128); h2 = np.zeros(128); ctx = np.zeros(64)
checked = bad = 0; maxdiff = 0
for step in range(200):
    x = pin(out.obs, out.mask)
    for b in range(64):
        legal = np.nonzero(out.mask[b])[0]
        if len(legal) < 2 or legal[0] >= 112: continue
        lg = policy.logits(x[b], legal)[legal]
        ref = legal[np.argmax(lg)]
        got = policy_logit_argmax(x[b], out.mask[b], net, nz, h1, h2, ctx)
        checked += 1; bad += ref != got
    out = venv.step(random_legal_actions(out.mask, rs))
print("checked", checked, "mismatch", bad)
