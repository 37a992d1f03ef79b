"""Paired: variants and the champion against a compiled search partnership on the same deals."""
import sys, time
import numpy as np
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from prollout import ChampionPolicyRollouts


def rate(m):
    return np.array([1.0 if g.side_agent.index(0) in g.winners else 0.0 for g in m.games])


games, seed, workers = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
variants = sys.argv[4].split(",")
cfg = RulesConfig(num_players=4)
out = {}
for name in variants + ["champion"]:
    agent = "champion" if name == "champion" else ChampionPolicyRollouts(name.rstrip("0123456789"), int(name.lstrip("abcdefghijklmnopqrstuvwxyz")))
    t = time.time()
    m = run_match(cfg, [agent, "search:engine=compiled"], games=games, seed=seed, workers=workers)
    w = rate(m)
    cpu = sum(g.act_seconds[g.side_agent.index(0)] for g in m.games) / len(m.games)
    out[name] = w
    print(f"{name}: {w.mean():.4f} over {len(w)} games, {cpu:.2f} s act/game, {time.time()-t:.0f} s wall", flush=True)
    np.save(f"duel_{seed}_{name}.npy", w)
for name in variants:
    d = out[name] - out["champion"]
    print(f"{name} - champion: {d.mean():+.4f} +- {1.96*d.std(ddof=1)/np.sqrt(len(d)):.4f}")
