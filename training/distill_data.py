"""The label shards of expert iteration (:mod:`training.distill`): one format, written and read here.

A shard (``shard_<seed>_<first game>.npz``, written atomically) holds one row per
labelled decision:

* ``inputs`` (N, D) float32: the student's network input (observation + its features);
* ``masks`` (N, 114) bool: the legal actions;
* ``values`` (N, 114) float32: the teacher's value of each legal action (NaN elsewhere);
* ``student_action``, ``teacher_action`` (N,) int16: what each would play;
* ``games``: ``[first game or seed, games, student side's wins]``.
"""

import glob
import os

import numpy as np

from .checkpoint import atomic_write


def write_shard(path, rows, games):
    """Write ``rows`` (tuples ``(input, mask, values, student_action, teacher_action)``) to ``path``."""
    from allfives_env.rules.actions import NUM_ACTIONS

    n = len(rows)
    arrays = {
        "inputs": np.stack([r[0] for r in rows]).astype(np.float32) if n else np.zeros((0, 0), np.float32),
        "masks": np.stack([r[1] for r in rows]).astype(bool) if n else np.zeros((0, NUM_ACTIONS), bool),
        "values": np.stack([r[2] for r in rows]).astype(np.float32) if n else np.zeros((0, NUM_ACTIONS), np.float32),
        "student_action": np.array([r[3] for r in rows], np.int16),
        "teacher_action": np.array([r[4] for r in rows], np.int16),
        "games": np.asarray(games, np.int64),
    }
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays), suffix=".npz")


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
            parts["masks"].append(d["masks"].astype(bool))
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
