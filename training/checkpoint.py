"""Checkpoints: atomic writes (temp file + ``os.replace``) and validated loads.

A training checkpoint (``latest.pt``, ``best.pt`` in the run folder) holds the
policy record that :mod:`allfives_env.agents.ppo` reads (so ``ppo:RUN/best.pt``
works in the arena), plus the optimizer, the step and update counts, the
config and the trainer state (RNG states, the batched environment's arrays,
the snapshot pool, the transitions carried between rollouts), so that
``--resume RUN_DIR`` continues exactly. :func:`export_policy` writes the
small policy-only file that is shipped in ``checkpoints/``.

Every file holds tensors and plain data only (numpy arrays are stored as
tensors, see :func:`to_plain`), so it loads with ``weights_only=True``: a
checkpoint from someone else cannot run code. Every file carries a digest of
its content, checked when it is read.
"""

import io
import os
import tempfile

import numpy as np
import torch

from allfives_env.agents.ppo.policy_file import (
    FORMAT,
    VERSION,
    CheckpointError,
    policy_record,
    read_checkpoint,
    with_digest,
)
from allfives_env.agents.registry import shipped_file
from allfives_env.arena.outputs import RUN_FILES, check_output_file

__all__ = ["CheckpointError", "atomic_write", "atomic_save", "save_checkpoint", "load_checkpoint", "export_policy"]


def atomic_write(path, write, suffix=""):
    """``write(file)`` into a temp file in ``path``'s folder, then ``os.replace``: a reader
    never sees a half-written file, and a crash leaves the old file intact."""
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=suffix, dir=folder)
    umask = os.umask(0)
    os.umask(umask)
    try:
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp makes 0600 files; give the usual permissions
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise


def atomic_save(obj, path):
    """``torch.save`` of ``obj`` with its digest, through :func:`atomic_write`."""
    buf = io.BytesIO()
    torch.save(with_digest(obj), buf)
    atomic_write(path, lambda f: f.write(buf.getvalue()), suffix=".pt")


def check_policy_output(target, sources=()) -> None:
    """Refuse, before any work, a path for a policy file that cannot be written there (a folder, a
    missing folder, not writable), that is one of the ``sources`` being read, a file the package ships,
    a training run's file (a run's ``policy.pt`` only where it is not written yet), a training checkpoint
    (``--resume`` needs it) or an existing file that is not a policy file: a ``ValueError`` in one line.
    A policy file of one's own may be replaced. The path is judged where it leads."""
    check_output_file(target, "the output", "policy.pt")
    for source in sources:
        if os.path.exists(source) and os.path.exists(target) and os.path.samefile(source, target):
            raise ValueError(f"the output {target!r} is the input file; give another path (the input is kept)")
    real = os.path.realpath(target)
    if real.startswith(os.path.realpath(shipped_file("checkpoints")) + os.sep):
        raise ValueError(f"the output {target!r} is a policy file the package ships (agents read it); give "
                         "another path (the file is kept)")
    folder, name = os.path.split(real)
    written = os.path.exists(real)
    if name in RUN_FILES and os.path.isfile(os.path.join(folder, "latest.pt")) and (written or name != "policy.pt"):
        raise ValueError(f"the output {target!r} is a file of the training run in {folder}; give another path "
                         "(the file is kept)")
    if os.path.isfile(real) and _is_training_checkpoint(real):
        raise ValueError(f"the output {target!r} is a training checkpoint (a run resumes from it); "
                         "give another path")
    if os.path.isfile(real) and not _is_policy_file(real):
        raise ValueError(f"the output {target!r} exists and is not a policy file; give another path (the file "
                         "is kept)")


def _is_policy_file(path) -> bool:
    try:
        read_checkpoint(path)
        return True
    except CheckpointError:
        return False


def _is_training_checkpoint(path) -> bool:
    try:
        load_checkpoint(path)  # what --resume reads
        return True
    except CheckpointError:  # a policy file, or not a checkpoint of ours: replaced like any output
        return False


def save_checkpoint(path, net, optimizer, rules, cfg_dict, global_step, update, trainer_state: dict, extra=None):
    ckpt = {
        "format": FORMAT, "version": VERSION,
        "policy": policy_record(net, rules, cfg_dict.get("features", "none")),
        "optimizer": optimizer.state_dict(),
        "global_step": int(global_step), "update": int(update),
        "config": dict(cfg_dict),
        "trainer": to_plain(trainer_state),
        "extra": dict(extra or {}),
    }
    atomic_save(ckpt, path)


def export_policy(path, net, rules, extra=None, features="none"):
    """A policy-only checkpoint (weights and shapes; no optimizer or trainer state)."""
    net_cpu = {k: v.detach().cpu().to(torch.float32) for k, v in net.state_dict().items()}
    record = policy_record(net, rules, features)
    record["state_dict"] = net_cpu
    atomic_save({"format": FORMAT, "version": VERSION, "policy": record, "extra": dict(extra or {})}, path)


def load_checkpoint(path, cfg_dict=None) -> dict:
    """A training checkpoint, checked: readable, the right format, and holding trainer state.

    With ``cfg_dict``, the settings that shape the network or the game must match
    (otherwise the checkpoint is *incompatible*: a :class:`CheckpointError` names them)."""
    ckpt = read_checkpoint(path)
    missing = [k for k in ("optimizer", "global_step", "update", "config", "trainer") if k not in ckpt]
    if missing:
        raise CheckpointError(f"{path!r} is a policy export, not a training checkpoint (missing {missing}); "
                              "it can be played (ppo:PATH) but not resumed")
    if cfg_dict is not None:
        # with what a resume keeps (seed, init_from): a config.yaml edited by hand cannot record a setting
        # the run never used
        keys = ("num_players", "target", "hidden_sizes", "activation", "num_envs", "num_steps", "auto_forced",
                "features", "action_width", "action_depth", "seed", "init_from")
        from .config import defaults

        stored = {**defaults(), **ckpt["config"]}  # keys added after the checkpoint was written take their defaults
        diff = [k for k in keys if stored.get(k) != cfg_dict.get(k)]
        if diff:
            detail = ", ".join(f"{k}: checkpoint {stored.get(k)!r} vs config {cfg_dict.get(k)!r}" for k in diff)
            raise CheckpointError(f"{path!r} is incompatible with this config ({detail})")
    if not isinstance(ckpt["trainer"], dict):
        raise CheckpointError(f"{path!r}: the trainer state is not a mapping (a checkpoint of an older version "
                              "of this code: it can be played, ppo:PATH, but not resumed)")
    ckpt["trainer"] = from_plain(ckpt["trainer"])
    return ckpt


#: Marks a numpy array stored as a tensor in :func:`to_plain`'s output.
_ARRAY = "__numpy__"


def to_plain(value):
    """``value`` with every numpy array (and numpy scalar) turned into tensors and Python numbers,
    recursively through dicts, lists and tuples: data that ``torch.load(weights_only=True)`` reads.
    Anything else that is not plain data (an object) is a ``TypeError``: it could not be read back."""
    if isinstance(value, np.ndarray):
        return {_ARRAY: torch.from_numpy(np.ascontiguousarray(value).copy())}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(to_plain(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str, torch.Tensor)):
        return value
    raise TypeError(f"the trainer state holds a {type(value).__name__}, which a checkpoint cannot store as plain data")


def from_plain(value):
    """The inverse of :func:`to_plain`."""
    if isinstance(value, dict):
        if set(value) == {_ARRAY}:
            return value[_ARRAY].numpy()
        return {k: from_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(from_plain(v) for v in value)
    return value
