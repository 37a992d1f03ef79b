"""The ``train`` step of :mod:`training.distill`: fine-tune a policy on a teacher's labels."""

import glob
import os

import numpy as np
import torch

from allfives_env.agents.ppo import CheckpointError, build_policy, policy_features, read_checkpoint
from allfives_env.agents.ppo_net import masked_logits
from allfives_env.rules.config import RulesConfig

from .checkpoint import export_policy

#: Share of the games (whole shards) held out to measure agreement with the teacher.
HOLDOUT = 0.05


def load_shards(folders) -> dict:
    """All shard files under ``folders`` concatenated, with a per-row held-out flag (whole shards)."""
    paths = sorted(p for folder in folders for p in glob.glob(os.path.join(folder, "shard_*.npz")))
    if not paths:
        raise ValueError(f"no shard_*.npz files under {list(folders)}; run `python -m training.distill collect` first")
    parts = {k: [] for k in ("inputs", "masks", "values", "student_action", "teacher_action", "holdout")}
    for i, path in enumerate(paths):
        with np.load(path) as d:
            n = len(d["masks"])
            if n == 0:
                continue
            parts["inputs"].append(d["inputs"].astype(np.float32))
            parts["masks"].append(d["masks"])
            parts["values"].append(d["values"])
            parts["student_action"].append(d["student_action"].astype(np.int64))
            parts["teacher_action"].append(d["teacher_action"].astype(np.int64))
            # every 20th shard (by sorted name) is held out: stable as more shards arrive
            parts["holdout"].append(np.full(n, i % int(round(1 / HOLDOUT)) == 0 and len(paths) > 1))
    widths = {a.shape[1] for a in parts["inputs"]}
    if len(widths) != 1:
        raise ValueError(f"shards of different input sizes {sorted(widths)}: collected with different students?")
    return {k: np.concatenate(v) for k, v in parts.items()}


def teacher_targets(values: np.ndarray, masks: np.ndarray, temperature: float, margin: float = None,
                    student_action: np.ndarray = None, teacher_action: np.ndarray = None) -> np.ndarray:
    """Target distributions over actions: one-hot on the teacher's action (``temperature=0``;
    ``teacher_action``, by default the first best legal value) or ``softmax(values / temperature)``
    over the legal actions.

    With ``margin`` (hard targets only), a row keeps the student's own action as its
    target unless the teacher values its best action more than ``margin`` above it:
    the student is corrected where the teacher is sure, not pulled toward the
    teacher's noise where the two are close."""
    v = np.where(masks, values, -np.inf)
    if temperature <= 0:
        rows = np.arange(len(v))
        best = np.argmax(v, axis=1) if teacher_action is None else teacher_action
        if margin is not None:
            keep = v[rows, best] - v[rows, student_action] <= margin
            best = np.where(keep, student_action, best)
        out = np.zeros(values.shape, np.float32)
        out[rows, best] = 1.0
        return out
    z = (v - v.max(axis=1, keepdims=True)) / temperature
    p = np.exp(z)
    return (p / p.sum(axis=1, keepdims=True)).astype(np.float32)


def agreement(net, inputs, masks, values) -> float:
    """Share of rows where the network's most likely legal action is the teacher's best."""
    if len(inputs) == 0:
        return float("nan")
    with torch.no_grad():
        logits, _ = net(torch.from_numpy(inputs))
        pick = masked_logits(logits, torch.from_numpy(masks)).argmax(-1).numpy()
    best = np.argmax(np.where(masks, values, -np.inf), axis=1)
    return float(np.mean(pick == best))


def train(student, data, out, epochs=4, lr=3e-4, batch_size=512, temperature=0.0, value_coef=1.0, seed=0,
          margin=None, hidden_sizes=None, log=print) -> dict:
    """Fine-tune ``student`` on the shards under ``data``; write the policy to ``out``.

    With ``hidden_sizes`` a new network of that shape (same inputs and rules as
    ``student``, seeded with ``seed``) is trained from scratch instead; its value
    head is left untrained (``value_coef`` does not apply)."""
    ckpt = read_checkpoint(student)
    policy = ckpt["policy"]
    torch.manual_seed(seed)
    net = build_policy(policy, student)
    if hidden_sizes:
        from allfives_env.agents.ppo_net import PolicyNet

        net = PolicyNet(net.obs_dim, hidden_sizes, net.activation, net.skip)
        value_coef = 0.0
        margin = None  # the fresh network has no own actions to keep
    features = policy_features(policy, student)
    rules = RulesConfig.from_options(**policy["rules"])
    d = load_shards(data)
    if d["inputs"].shape[1] != net.obs_dim:
        raise CheckpointError(f"{student!r} reads inputs of size {net.obs_dim}; the shards hold {d['inputs'].shape[1]}")
    train_rows, held = ~d["holdout"], d["holdout"]
    x = torch.from_numpy(d["inputs"][train_rows])
    m = torch.from_numpy(d["masks"][train_rows])
    y = torch.from_numpy(teacher_targets(d["values"][train_rows], d["masks"][train_rows], temperature, margin,
                                         d["student_action"][train_rows], d["teacher_action"][train_rows]))
    with torch.no_grad():
        v0 = net(x)[1]
    held_args = (d["inputs"][held], d["masks"][held], d["values"][held])
    before = {"train": agreement(net, d["inputs"][train_rows], d["masks"][train_rows], d["values"][train_rows]),
              "held_out": agreement(net, *held_args)}
    log(f"{len(x)} training rows, {int(held.sum())} held out; agreement with the teacher before: "
        f"train {before['train']:.3f}, held out {before['held_out']:.3f}")
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for start in range(0, len(x), batch_size):
            idx = order[start:start + batch_size]
            logits, value = net(x[idx])
            logp = torch.log_softmax(masked_logits(logits, m[idx]), dim=-1)
            ce = -(y[idx] * torch.where(m[idx], logp, torch.zeros_like(logp))).sum(-1).mean()
            loss = ce + value_coef * ((value - v0[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += ce.item() * len(idx)
        net.eval()
        log(f"epoch {epoch + 1}/{epochs}: cross-entropy {total / len(x):.4f}, held-out agreement "
            f"{agreement(net, *held_args):.3f}")
        net.train()
    net.eval()
    after = {"train": agreement(net, d["inputs"][train_rows], d["masks"][train_rows], d["values"][train_rows]),
             "held_out": agreement(net, *held_args)}
    extra = {"distilled_from": student, "data": list(data), "rows": int(len(x)), "epochs": epochs, "lr": lr,
             "temperature": temperature, "margin": margin, "hidden_sizes": net.spec()["hidden_sizes"], "agreement_before": before, "agreement_after": after}
    export_policy(out, net, rules, extra=extra, features=features)
    log(f"wrote {out}: agreement train {after['train']:.3f}, held out {after['held_out']:.3f}")
    return extra
