"""Scratch: P(win) of side A at scores (5i, 5j) before a 2-player hand, to target 250, from the hand table."""
import numpy as np
pts = np.load("/tmp/exp/hand_points.npy")
pairs, counts = np.unique((pts // 5).astype(int), axis=0, return_counts=True)
p = counts / counts.sum()
N = 50
V = np.full((N, N), 0.5)
for it in range(200):
    new = np.zeros((N, N))
    for (x, y), w in zip(pairs, p):
        I = np.arange(N)[:, None] + x; J = np.arange(N)[None, :] + y
        a_end, b_end = I >= N, J >= N
        val = np.where(a_end & b_end, 0.5, np.where(a_end, 1.0, np.where(b_end, 0.0,
                       V[np.minimum(I, N - 1), np.minimum(J, N - 1)])))
        new += w * val
    d = np.abs(new - V).max(); V = new
    if d < 1e-10: break
print(it, d, V[0, 0], V[10, 0], V[40, 30], V[45, 45], V[49, 0], V[0, 49])
np.save("/tmp/exp/win_table_2p.npy", V)
