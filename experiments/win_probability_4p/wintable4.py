"""Scratch: P(win) of side A at scores (5i, 5j) before a 4-player hand, to target 200, from the hand table."""
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
pts = np.load(os.path.join(HERE, "hand_points_4p.npy"))
pairs, counts = np.unique((pts // 5).astype(int), axis=0, return_counts=True)
p = counts / counts.sum()
N = 40
V = np.full((N, N), 0.5)
for it in range(500):
    new = np.zeros((N, N))
    for (x, y), w in zip(pairs, p):
        I = np.arange(N)[:, None] + x; J = np.arange(N)[None, :] + y
        a_end, b_end = I >= N, J >= N
        val = np.where(a_end & b_end, 0.5, np.where(a_end, 1.0, np.where(b_end, 0.0,
                       V[np.minimum(I, N - 1), np.minimum(J, N - 1)])))
        new += w * val
    d = np.abs(new - V).max(); V = new
    if d < 1e-12: break
print(it, d, V[0, 0], V[10, 0], V[30, 20], V[35, 35], V[39, 0], V[0, 39])
slope = (V[2, 0] - V[0, 0]) / 10, (V[0, 0] - V[0, 2]) / 10
print("slope at 0-0 per point", slope)
np.save(os.path.join(HERE, "win_table_4p.npy"), V)
