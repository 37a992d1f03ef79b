"""Scratch: the joint distribution of one 4-player hand's points (heuristic self-play)."""
import os

import numpy as np
from allfives_env.vector import VectorAllFives
from allfives_env.agents.batched import BatchedHeuristic

B = 20000
venv = VectorAllFives(B, num_players=4, episode="hand", target=10000)
out = venv.reset(seed=700100)
agent = BatchedHeuristic(venv)
done = np.zeros(B, bool); pts = np.zeros((B, 2))
while not done.all():
    live = np.nonzero(~done)[0].astype(np.int64)
    acts = np.full(B, -1, np.int64)
    acts[live] = agent.actions(out, live, np.zeros(len(live), np.int64))
    out = venv.step(acts)
    t = np.nonzero(out.terminated & ~done)[0]
    pts[t] = out.final_scores[t]; done[t] = True
both = np.concatenate([pts, pts[:, ::-1]])
print("mean", both.mean(0), "max", both.max(), "zero-zero", np.mean((both == 0).all(1)), "half", np.mean(both % 5 != 0))
np.save(os.path.join(os.path.dirname(os.path.abspath(__file__)), "hand_points_4p.npy"), both)
