"""fit_belief.py OUT.npz data_*.npz : MLP x(+flag) -> partner's 28 tiles (BCE on the tiles unknown to the
observer); held-out games %10==0; reports log-loss per unknown tile against the uniform guess."""
import os, sys, time, numpy as np, torch
out, files = sys.argv[1], sys.argv[2:]
torch.set_num_threads(2); torch.manual_seed(0)
ds = [np.load(f) for f in files]
x = np.concatenate([d["x"] for d in ds])
hp = np.concatenate([d["h"][:, 28:56] for d in ds]).astype(np.float32)  # relative seat 2 = partner
fl = np.concatenate([d["flag"] for d in ds]).astype(np.float32)[:, None]
g = np.concatenate([d["game"] for d in ds])
known = (x[:, :28] + x[:, 28:140].reshape(-1, 4, 28).sum(1)) > 0
unknown = (~known).astype(np.float32)
# hand_sizes offset: after hand 28, played 112, slots 4+28+4+4, spinner 3+7, count, is_lead, boneyard
off = 28 + 112 + 4 + 28 + 4 + 4 + 3 + 7 + 1 + 1 + 1
psize = np.rint(x[:, off + 2] * 10)
assert np.allclose((hp * unknown).sum(1), psize), "partner size check"
assert (hp * known).sum() == 0
X = np.hstack([x, fl]).astype(np.float32); del x
mean = X.mean(0); std = X.std(0) + 1e-3
X = (X - mean) / std
held = g % 10 == 0
uni = psize[:, None] / np.maximum(unknown.sum(1, keepdims=True), 1)
def ll(p, y, m):
    p = np.clip(p, 1e-4, 1 - 1e-4)
    return -((y * np.log(p) + (1 - y) * np.log(1 - p)) * m).sum() / m.sum()
print("uniform held-out log-loss per unknown tile", ll(uni[held], hp[held], unknown[held]), flush=True)
Xt, yt, mt = (torch.from_numpy(a[~held]) for a in (X, hp, unknown))
Xh = torch.from_numpy(X[held])
W = int(os.environ.get("W1", 256))
net = torch.nn.Sequential(torch.nn.Linear(X.shape[1], W), torch.nn.ReLU(), torch.nn.Linear(W, 256), torch.nn.ReLU(),
                          torch.nn.Linear(256, 28))
opt = torch.optim.Adam(net.parameters(), lr=1e-3, weight_decay=1e-5)
epochs = int(os.environ.get("EPOCHS", 4))
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs * (len(yt) // 1024 + 1))
bce = torch.nn.BCEWithLogitsLoss(reduction="none")
best = (9, None)
for ep in range(epochs):
    t = time.time(); perm = torch.randperm(len(yt)); net.train()
    for s in range(0, len(yt), 1024):
        i = perm[s:s + 1024]
        loss = (bce(net(Xt[i]), yt[i]) * mt[i]).sum() / mt[i].sum()
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    net.eval()
    with torch.no_grad():
        ph = torch.sigmoid(net(Xh)).numpy()
    v = ll(ph, hp[held], unknown[held])
    f1 = held & (fl[:, 0] == 1)
    with torch.no_grad():
        p1 = torch.sigmoid(net(torch.from_numpy(X[f1]))).numpy()
    print(f"epoch {ep} held-out log-loss {v:.4f} (flag1 {ll(p1, hp[f1], unknown[f1]):.4f} vs uniform "
          f"{ll(uni[f1], hp[f1], unknown[f1]):.4f}) ({time.time()-t:.0f}s)", flush=True)
    if v < best[0]:
        best = (v, {k: v_.clone() for k, v_ in net.state_dict().items()})
net.load_state_dict(best[1])
lin = [m for m in net if isinstance(m, torch.nn.Linear)]
np.savez(out, mean=mean, std=std, **{f"w{i}": m.weight.detach().numpy().T for i, m in enumerate(lin)},
         **{f"b{i}": m.bias.detach().numpy() for i, m in enumerate(lin)})
print("best", best[0], "rows", len(hp), "held", held.sum())
