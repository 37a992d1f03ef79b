"""The ``train`` step of :mod:`training.distill`: fine-tune a policy on a teacher's labels."""

import numpy as np
import torch

from allfives_env.agents.ppo.agent import CheckpointError, build_policy, policy_features, read_checkpoint
from allfives_env.agents.ppo.network import masked_logits
from allfives_env.rules.config import RulesConfig

from .checkpoint import export_policy
from .distill_data import load_shards, teacher_targets
from .update import imitation_loss


def agreement(net, inputs, masks, values) -> float:
    """Share of rows where the network's most likely legal action is the teacher's best."""
    if len(inputs) == 0:
        return float("nan")
    with torch.no_grad():
        torch_masks = torch.from_numpy(masks)
        logits, _ = net(torch.from_numpy(inputs), torch_masks)
        pick = masked_logits(logits, torch_masks).argmax(-1).numpy()
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
        from allfives_env.agents.ppo.network import PolicyNet

        net = PolicyNet(**{**net.spec(), "hidden_sizes": hidden_sizes})
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
        v0 = net(x, m)[1]
    held_args = (d["inputs"][held], d["masks"][held], d["values"][held])
    before = {"train": agreement(net, d["inputs"][train_rows], d["masks"][train_rows], d["values"][train_rows]),
              "held_out": agreement(net, *held_args)}
    if not held.any():
        log("one label file: no games are held out (whole files are), so held-out agreement is n/a")
    log(f"{len(x)} training rows, {int(held.sum())} held out; agreement with the teacher before: "
        f"train {before['train']:.3f}, held out {_share(before['held_out'])}")
    net.train()
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for start in range(0, len(x), batch_size):
            idx = order[start:start + batch_size]
            logits, value = net(x[idx], m[idx])
            ce = imitation_loss(logits, m[idx], y[idx])
            loss = ce + value_coef * ((value - v0[idx]) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += ce.item() * len(idx)
        net.eval()
        log(f"epoch {epoch + 1}/{epochs}: cross-entropy {total / len(x):.4f}, held-out agreement "
            f"{_share(agreement(net, *held_args))}")
        net.train()
    net.eval()
    after = {"train": agreement(net, d["inputs"][train_rows], d["masks"][train_rows], d["values"][train_rows]),
             "held_out": agreement(net, *held_args)}
    extra = {"distilled_from": student, "data": list(data), "rows": int(len(x)), "epochs": epochs, "lr": lr,
             "temperature": temperature, "margin": margin, "hidden_sizes": net.spec()["hidden_sizes"], "agreement_before": before, "agreement_after": after}
    export_policy(out, net, rules, extra=extra, features=features)
    log(f"wrote {out}: agreement train {after['train']:.3f}, held out {_share(after['held_out'])}")
    return extra


def _share(value):
    """An agreement for the log: three decimals, or n/a when nothing was measured (NaN)."""
    return "n/a" if value != value else f"{value:.3f}"
