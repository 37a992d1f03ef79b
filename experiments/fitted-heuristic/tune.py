"""Scratch: coordinate search over the heuristic's weights for strength (common deals per evaluation).

python tune.py PLAYERS SEED GAMES_H GAMES_S [x0 as a/b/c/d/e/f]
Objective: the mean of the win rates against the default heuristic (GAMES_H) and a compiled search (GAMES_S).
"""
import sys
import time
import numpy as np

from allfives_env.arena.match import run_match
from allfives_env.rules.config import RulesConfig

NAMES = ("reply_weight", "control_weight", "stuck_penalty", "shed_weight", "late_shed_weight", "double_bonus")


def spec(x):
    return "heuristic:" + ",".join(f"{n}={v:.4g}" for n, v in zip(NAMES, x))


def rate(cfg, x, opp, games, seed):
    res = run_match(cfg, [spec(x), opp], games, seed=seed, workers=2)
    return res.agent_stats()[0].win_rate


def objective(cfg, x, seed, gh, gs):
    a = rate(cfg, x, "heuristic", gh, seed)
    b = rate(cfg, x, "search:engine=compiled", gs, seed + 1) if gs else a
    return (a + b) / 2, a, b


if __name__ == "__main__":
    n, seed, gh, gs = (int(v) for v in sys.argv[1:5])
    x = np.array([float(v) for v in sys.argv[5].split("/")]) if len(sys.argv) > 5 else \
        np.array([0.7, 0.5, 3.0, 0.1, 0.6, 1.0])
    cfg = RulesConfig(num_players=n)
    best, a, b = objective(cfg, x, seed, gh, gs)
    print("start", spec(x), round(best, 4), round(a, 4), round(b, 4), flush=True)
    step = 0.5
    for sweep in range(3):
        for i in range(len(x)):
            for f in (1 + step, 1 / (1 + step)):
                y = x.copy()
                y[i] = x[i] * f if x[i] > 0.02 else (0.1 if f > 1 else 0.0)
                t = time.time()
                val, a, b = objective(cfg, y, seed, gh, gs)
                print(f"  {NAMES[i]} x{f:.2f} {round(val, 4)} ({round(a, 4)}, {round(b, 4)}) {time.time() - t:.0f}s",
                      flush=True)
                if val > best + 0.003:
                    best, x = val, y
                    print("  -> ", spec(x), round(best, 4), flush=True)
                    break
        step /= 2
        print("sweep", sweep, spec(x), round(best, 4), flush=True)
