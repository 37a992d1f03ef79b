"""Files from others run no code, and a damaged file is one clear line (issue 23).

Every kind of file the project reads gets a crafted pickle that would create a marker
file when unpickled: checkpoints and policy files (``ppo:PATH``, ``--resume``,
``training.export``), game records and configs. Each is refused, and the marker never appears.
"""

import os
import stat
import subprocess
import sys

import numpy as np
import pytest
import torch

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.policy_file import DIGEST_KEY, CheckpointError, read_checkpoint, with_digest
from allfives_env.rules.record import read_records
from training.checkpoint import atomic_write
from training.cli import main as train_main
from training.config import ConfigError, load_config

FAST = ["eval_every=0", "torch_threads=1", "tensorboard=false", "checkpoint_minutes=0"]


class _Payload:
    """Unpickling this runs ``touch MARKER``."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.fixture
def run(tmp_path):
    folder = str(tmp_path / "run")
    assert train_main(["--config", "configs/smoke.yaml", "--run-dir", folder, *FAST, "total_timesteps=1024"]) == 0
    return folder


def _plant(path, marker, where):
    """Rewrite the torch file at ``path`` with the payload at ``where`` (a top-level key)."""
    ckpt = torch.load(path, weights_only=True)
    ckpt[where] = {"state": _Payload(marker)}
    torch.save(ckpt, path)


@pytest.mark.parametrize("where", ["trainer", "extra", "policy"])
def test_a_crafted_checkpoint_runs_nothing_anywhere_it_is_read(run, tmp_path, where, capsys):
    marker = tmp_path / "pwned"
    for name in ("latest.pt", "policy.pt"):
        _plant(os.path.join(run, name), marker, where)
    with pytest.raises(CheckpointError, match="refused: it holds Python objects"):
        read_checkpoint(os.path.join(run, "policy.pt"))
    with pytest.raises(ValueError, match="refused"):
        make_agent(f"ppo:{run}/policy.pt")
    assert train_main(["--resume", run]) == 2
    assert "refused" in capsys.readouterr().err
    export = subprocess.run([sys.executable, "-m", "training.export", f"{run}/latest.pt", str(tmp_path / "out.pt")],
                            capture_output=True, text=True, timeout=120)
    assert export.returncode == 2 and "refused" in export.stderr and "Traceback" not in export.stderr
    assert not marker.exists()


def test_crafted_records_and_configs_run_nothing(tmp_path):
    import pickle

    marker = tmp_path / "pwned"
    blob = pickle.dumps(_Payload(marker))
    record = tmp_path / "game.jsonl"
    record.write_bytes(blob)
    with pytest.raises(ValueError, match="game.jsonl, line 1"):
        read_records(str(record))
    config = tmp_path / "bad.yaml"
    config.write_bytes(blob)
    with pytest.raises(ConfigError):
        load_config(str(config))
    tagged = tmp_path / "tagged.yaml"
    tagged.write_text(f"seed: !!python/object/apply:os.system ['touch {marker}']\n")
    with pytest.raises(ConfigError, match="tagged.yaml: not valid YAML"):
        load_config(str(tagged))
    assert not marker.exists()


@pytest.mark.parametrize("offset", [0.2, 0.4, 0.5, 0.6, 0.8])
def test_random_bytes_in_a_policy_file_are_found(tmp_path, offset):
    """2,000 random bytes written into the middle of the shipped policy (it used to load with NaN
    weights and play): refused with one line naming the file, whatever part they hit."""
    data = bytearray(open("checkpoints/ppo_2p.pt", "rb").read())
    start = int(len(data) * offset)
    data[start:start + 2000] = np.random.default_rng(start).integers(0, 256, 2000, dtype=np.uint8).tobytes()
    path = tmp_path / "damaged.pt"
    path.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match="damaged"):
        make_agent(f"ppo:{path}")


def test_a_weight_changed_under_a_kept_digest_is_found(tmp_path):
    """The digest covers the weights' bytes: a file signed here loads, and the same file with one weight
    moved and its digest kept is refused."""
    ckpt = with_digest(torch.load("checkpoints/ppo_2p.pt", weights_only=True))
    path = tmp_path / "signed.pt"
    torch.save(ckpt, path)
    assert read_checkpoint(str(path))[DIGEST_KEY] == ckpt[DIGEST_KEY]
    ckpt["policy"]["state_dict"]["trunk.0.weight"][0, 0] += 0.5
    torch.save(ckpt, path)
    with pytest.raises(CheckpointError, match="damaged"):
        read_checkpoint(str(path))


def test_an_unsigned_old_file_with_nan_weights_is_refused(tmp_path):
    """Version 1 files (before the digest) still load, but not with weights that are not finite."""
    ckpt = torch.load("checkpoints/ppo_2p.pt", weights_only=True)
    ckpt["version"] = 1
    del ckpt["sha256"]
    path = tmp_path / "old.pt"
    torch.save(ckpt, path)
    assert read_checkpoint(str(path))["version"] == 1
    ckpt["policy"]["state_dict"]["trunk.0.weight"][0, 0] = float("nan")
    torch.save(ckpt, path)
    with pytest.raises(CheckpointError, match="trunk.0.weight.*NaN"):
        read_checkpoint(str(path))


def test_the_trainer_state_is_plain_data(run):
    """A training checkpoint loads with weights_only=True as it is: no pickled objects inside."""
    ckpt = torch.load(os.path.join(run, "latest.pt"), weights_only=True)
    assert isinstance(ckpt["trainer"], dict) and "collector" in ckpt["trainer"]


def _altered_policy_file(tmp_path, change) -> str:
    """The shipped 2-player policy file with ``change(policy record)`` applied and a matching digest: as a file
    made by hand passes the integrity check."""

    ckpt = torch.load("checkpoints/ppo_2p.pt", weights_only=True)
    del ckpt["sha256"]
    change(ckpt["policy"])
    path = str(tmp_path / "altered.pt")
    torch.save(with_digest(ckpt), path)
    return path


@pytest.mark.parametrize("change, words", [
    (lambda p: p.update(rules=[2]), "the policy's rules are [2]; allowed: a mapping"),  # was a TypeError (**)
    (lambda p: p.update(rules={**p["rules"], "divisor": 4}), "the policy's rules are not valid (divisor=4"),
    (lambda p: p.update(net=[64]), "the policy's net is [64]; allowed: a mapping"),
    (lambda p: p.update(state_dict={0: v for v in p["state_dict"].values()}),  # was an AttributeError
     "the policy's state_dict has the key 0; allowed: weight names"),
    (lambda p: p.update(num_players=7), "the policy's num_players is 7; allowed: the player count of its rules, 2"),
    (lambda p: p.update(num_players="2"), "the policy's num_players is '2'"),  # these loaded and played
    (lambda p: p.update(num_players=None), "the policy's num_players is None"),
    (lambda p: p.update(encoder="history"), "the policy's encoder is 'history'; allowed: 'default'"),
    (lambda p: p.update(features=["none"]), "needs features=['none'], unknown here"),
    (lambda p: p.update(state_dict={k: v.long() for k, v in p["state_dict"].items()}),
     "holds torch.int64 values; allowed: floating-point weights"),
])
def test_a_policy_record_made_by_hand_is_refused_in_one_line_wherever_it_is_read(tmp_path, capsys, change, words):
    from allfives_env.cli import main as allfives_main
    from training.export import main as export_main

    path = _altered_policy_file(tmp_path, change)
    with pytest.raises(CheckpointError) as refused:
        read_checkpoint(path)
    assert str(refused.value).startswith(f"{path!r}") and words in str(refused.value)
    for main, args in ((allfives_main, ["eval", "--agents", f"ppo:{path}", "random", "--games", "2"]),
                       (export_main, [path, str(tmp_path / "out.pt")])):
        assert main(args) == 2
        err = capsys.readouterr().err
        assert words in err and len(err.strip().splitlines()) == 1, err
    assert not (tmp_path / "out.pt").exists()


def test_a_failed_atomic_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path):
    """A checkpoint write that fails halfway keeps the old file and leaves no temp file; a good one
    replaces it."""
    from training.checkpoint import atomic_write

    path = tmp_path / "latest.pt"
    path.write_bytes(b"old")

    def crash(f):
        f.write(b"half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        atomic_write(str(path), crash, suffix=".pt")
    assert path.read_bytes() == b"old" and sorted(os.listdir(tmp_path)) == ["latest.pt"]
    atomic_write(str(path), lambda f: f.write(b"new"), suffix=".pt")
    assert path.read_bytes() == b"new" and sorted(os.listdir(tmp_path)) == ["latest.pt"]


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_an_atomically_written_file_has_the_permissions_a_plain_open_gives(tmp_path, umask):
    """A temp file from mkstemp is 0600; the written file gets 0666 less the umask, as ``open(path, "w")``
    would give (a shared run folder stays readable). Catches (checkpoint.py atomic_write: the
    ``os.chmod(tmp, 0o666 & ~umask)`` dropped)."""
    old = os.umask(umask)
    try:
        path = tmp_path / "latest.pt"
        atomic_write(path, lambda f: f.write(b"data"), suffix=".pt")
        plain = tmp_path / "plain.txt"
        plain.write_bytes(b"data")
    finally:
        os.umask(old)
    assert path.read_bytes() == b"data"
    assert stat.S_IMODE(path.stat().st_mode) == stat.S_IMODE(plain.stat().st_mode) == 0o666 & ~umask
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")] == []


def test_trainer_state_round_trips_through_a_checkpoint_with_its_tuples_and_arrays(tmp_path):
    """from_plain is the inverse of to_plain, through a file read with weights_only: arrays come back as
    arrays, numpy scalars as numbers, tuples as tuples and lists as lists.
    Catches (checkpoint.py to_plain: ``type(value)(...)`` -> ``list(...)``)."""
    import numpy as np
    import torch

    from training.checkpoint import from_plain, to_plain

    state = {"pair": (3, np.int64(4)), "rows": [np.arange(3), (np.float32(0.5), "x")], "none": None}
    path = tmp_path / "state.pt"
    torch.save(to_plain(state), path)
    back = from_plain(torch.load(path, weights_only=True))
    assert back["pair"] == (3, 4) and type(back["pair"]) is tuple
    assert type(back["rows"]) is list and np.array_equal(back["rows"][0], np.arange(3))
    assert back["rows"][1] == (0.5, "x") and type(back["rows"][1]) is tuple and back["none"] is None
