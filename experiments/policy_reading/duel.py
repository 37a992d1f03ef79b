"""Paired: the champion and ChampionPR(a, b) against a compiled search partnership on the same deals."""
import sys, time, json
import numpy as np
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from preader import ChampionPR


def rate(m):
    w = []
    for g in m.games:
        side = g.side_agent.index(0)
        w.append(1.0 if side in g.winners else 0.0)
    return np.array(w)


games, seed, workers, a, b = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), float(sys.argv[4]), float(sys.argv[5])
cfg = RulesConfig(num_players=4)
out = {}
for name, agent in [("variant", ChampionPR(a=a, b=b)), ("champion", "champion")]:
    t = time.time()
    m = run_match(cfg, [agent, "search:engine=compiled"], games=games, seed=seed, workers=workers)
    w = rate(m)
    cpu = sum(g.act_seconds[g.side_agent.index(0)] for g in m.games) / len(m.games)
    out[name] = w
    print(f"{name}: {w.mean():.4f} over {len(w)} games, {cpu:.2f} s act/game, {time.time()-t:.0f} s wall", flush=True)
d = out["variant"] - out["champion"]
print(f"paired diff {d.mean():+.4f} +- {1.96*d.std(ddof=1)/np.sqrt(len(d)):.4f}")
np.save(f"duel_{seed}_{a}_{b}.npy", np.stack([out['variant'], out['champion']]))
