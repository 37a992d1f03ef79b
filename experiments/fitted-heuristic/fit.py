"""Scratch: fit the heuristic's term weights (a conditional logit with the reader's floor) to champion choices."""
import pickle
import sys
import numpy as np
from scipy.optimize import minimize

FLOOR = 0.05
DEFAULT = np.array([1.0, 0.7, 0.5, 3.0, 0.1, 0.6, 1.0])


def load(path):
    rows = pickle.load(open(path, "rb"))
    return [(X, c) for X, c, _ in rows if np.all(np.abs(X) < 1e3)]


def nll(beta, rows):
    total = 0.0
    for X, c in rows:
        z = X @ beta
        z = z - z.max()
        p = np.exp(z) / np.exp(z).sum()
        total -= np.log((1 - FLOOR) * p[c] + FLOOR / len(p))
    return total / len(rows)


if __name__ == "__main__":
    train, test = load(sys.argv[1]), load(sys.argv[2])
    print("rows", len(train), len(test))
    for t in (1, 2, 4):
        print("default T", t, "train", round(nll(DEFAULT / t, train), 4), "test", round(nll(DEFAULT / t, test), 4))
    print("uniform test", round(float(np.mean([np.log(len(X)) for X, _ in test])), 4))
    res = minimize(nll, DEFAULT / 2, args=(train,), method="L-BFGS-B")
    b = res.x
    print("fit", np.round(b, 3), "as weights", np.round(b / b[0], 3), "T", round(1 / b[0], 3))
    print("fit train", round(nll(b, train), 4), "test", round(nll(b, test), 4))
