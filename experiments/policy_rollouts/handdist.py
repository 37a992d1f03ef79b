"""Scratch: the joint distribution of one 2-player hand's points (heuristic self-play), as a table."""
import numpy as np
from allfives_env.vector import VectorAllFives
from allfives_env.agents.heuristic_compiled import HeuristicScratch
from allfives_env.agents.search_compiled import HEURISTIC_WEIGHTS

B = 20000
venv = VectorAllFives(B, num_players=2, episode="hand", target=100000)
out = venv.reset(seed=555)
scratch = HeuristicScratch(venv.num_sides)
done = np.zeros(B, bool); pts = np.zeros((B, 2))
allg = np.arange(B, dtype=np.int64)
while not done.all():
    cs = venv.compiled_state()
    live = np.nonzero(~done)[0].astype(np.int64)
    acts = np.full(B, -1, np.int64)
    acts[live] = scratch.moves(cs, live, HEURISTIC_WEIGHTS, np.zeros(len(live), np.int64))
    out = venv.step(acts)
    t = np.nonzero(out.terminated & ~done)[0]
    pts[t] = out.final_scores[t]; done[t] = True
# seat 0 = side 0; the leader is drawn at random, so the two sides are symmetric in distribution
both = np.concatenate([pts, pts[:, ::-1]])
print("mean", both.mean(0), "max", both.max(), "zero-zero", np.mean((both == 0).all(1)))
np.save("/tmp/exp/hand_points.npy", both)
