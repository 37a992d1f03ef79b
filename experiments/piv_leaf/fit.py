"""fit.py OUT.npz use_h(0/1) data_*.npz : MLP value fit, held-out games %10==0."""
import sys, time, numpy as np, torch
out, use_h, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
torch.set_num_threads(2); torch.manual_seed(0)
ds = [np.load(f) for f in files]
x = np.concatenate([d["x"] for d in ds]); h = np.concatenate([d["h"] for d in ds]).astype(np.float32)
fl = np.concatenate([d["flag"] for d in ds]).astype(np.float32)[:, None]
r = np.concatenate([d["ret"] for d in ds]); g = np.concatenate([d["game"] for d in ds])
X = np.hstack([x, h, fl] if use_h else [x, fl]).astype(np.float32); del x
mean = X.mean(0); std = X.std(0) + 1e-3
X = (X - mean) / std
held = g % 10 == 0
Xt, rt = torch.from_numpy(X[~held]), torch.from_numpy(r[~held]); Xh, rh = torch.from_numpy(X[held]), r[held]
dims = [X.shape[1], int(__import__("os").environ.get("W1", 256)), 256, 1]
layers = []
for a, b in zip(dims[:-1], dims[1:]):
    layers += [torch.nn.Linear(a, b), torch.nn.ReLU()]
net = torch.nn.Sequential(*layers[:-1])
opt = torch.optim.Adam(net.parameters(), lr=3e-4, weight_decay=1e-5)
epochs = int(__import__("os").environ.get("EPOCHS", 6))
sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs * (len(rt) // 1024 + 1))
best = (-9, None)
for ep in range(epochs):
    t = time.time(); perm = torch.randperm(len(rt)); net.train()
    for s in range(0, len(rt), 1024):
        i = perm[s:s + 1024]
        loss = ((net(Xt[i])[:, 0] - rt[i]) ** 2).mean()
        opt.zero_grad(); loss.backward(); opt.step(); sched.step()
    net.eval()
    with torch.no_grad():
        ph = net(Xh)[:, 0].numpy()
    ev = 1 - np.mean((ph - rh) ** 2) / np.var(rh)
    print(f"epoch {ep} held-out EV {ev:.4f} ({time.time()-t:.0f}s)", flush=True)
    if ev > best[0]:
        best = (ev, {k: v.clone() for k, v in net.state_dict().items()})
net.load_state_dict(best[1])
lin = [m for m in net if isinstance(m, torch.nn.Linear)]
np.savez(out, mean=mean, std=std, use_h=use_h, **{f"w{i}": m.weight.detach().numpy().T for i, m in enumerate(lin)},
         **{f"b{i}": m.bias.detach().numpy() for i, m in enumerate(lin)})
print("best EV", best[0], "rows", len(r), "held", held.sum())
