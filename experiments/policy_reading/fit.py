import sys, pickle
import numpy as np
from scipy.optimize import minimize

rows = pickle.load(open(sys.argv[1], "rb"))
FLOOR = 0.05
games = sorted({r["game"] for r in rows}, key=str)
rng = np.random.default_rng(0)
test_games = set(map(tuple, [games[i] for i in rng.permutation(len(games))[: len(games) // 3]]))
train = [r for r in rows if tuple(r["game"]) not in test_games]
test = [r for r in rows if tuple(r["game"]) in test_games]


def nll(rs, a, b, floor=FLOOR):
    tot, top = 0.0, 0
    for r in rs:
        z = a * r["h"] + b * r["logit"]
        z = z - z.max()
        p = np.exp(z); p /= p.sum()
        p = (1 - floor) * p + floor / len(p)
        tot -= np.log(p[r["chosen"]])
        top += int(np.argmax(z) == r["chosen"])
    return tot / len(rs), top / len(rs)


print(len(train), "train", len(test), "test decisions; uniform nll",
      np.mean([np.log(len(r["legal"])) for r in test]))
for name, a, b in [("heuristic T=2 (shipped reader)", 0.5, 0.0), ("policy logits", 0.0, 1.0)]:
    print(name, "test nll %.3f top1 %.3f" % nll(test, a, b))
for label, free in [("heuristic alone, fitted T", (1, 0)), ("policy alone, fitted tau", (0, 1)), ("both", (1, 1))]:
    def f(x):
        a = x[0] if free[0] else 0.0
        b = x[1] if free[1] else 0.0
        return nll(train, a, b)[0]
    res = minimize(f, x0=[0.5 if free[0] else 0.0, 1.0 if free[1] else 0.0], method="Nelder-Mead")
    a = res.x[0] if free[0] else 0.0; b = res.x[1] if free[1] else 0.0
    print(label, "a=%.3f b=%.3f" % (a, b), "train %.3f" % res.fun, "test nll %.3f top1 %.3f" % nll(test, a, b))
