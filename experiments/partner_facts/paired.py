"""paired.py A.jsonl B.jsonl: win (1, 0.5 shared, 0) of each file's first spec per game, paired by (deal, rotation)."""
import json
import sys

import numpy as np


def wins(path):
    out = {}
    for line in open(path):
        r = json.loads(line)
        spec = r["seats"][0] if r["rotation"] == 0 else None
        seats = r["seats"]
        me = sorted(set(seats), key=seats.index)
        # the evaluated agent: the spec that is not the opponent's
        agent = [s for s in me if s != OPP][0]
        side = seats.index(agent) % 2
        w = r["winners"]
        out[(r["deal"], r["rotation"])] = (1.0 if w == [side] else 0.0) if len(w) == 1 else (0.5 if side in w else 0.0)
    return out


OPP = sys.argv[3] if len(sys.argv) > 3 else "search:engine=compiled"
a, b = wins(sys.argv[1]), wins(sys.argv[2])
keys = sorted(set(a) & set(b))
x, y = np.array([a[k] for k in keys]), np.array([b[k] for k in keys])
d = x - y
print(f"{len(keys)} games: A {x.mean():.4f}  B {y.mean():.4f}  A-B {d.mean():+.4f} +- {1.96 * d.std(ddof=1) / np.sqrt(len(d)):.4f}")
