"""``load_numpy_policy`` reads a policy file once per process, keyed by the file's path, size and mtime.

A training run rewrites ``policy.pt`` / ``best.pt`` in place at every checkpoint, and each rewrite of the
same network shape has the same size; only the modification time tells the new file from the old.
A process that plays the file again (an arena, an evaluation) must then see the new weights."""

import os

import numpy as np
import pytest
import torch

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.agent import load_numpy_policy
from allfives_env.agents.ppo.network import PolicyNet
from allfives_env.agents.ppo.policy_file import (
    FORMAT,
    VERSION,
    CheckpointError,
    check_policy_file,
    policy_record,
    with_digest,
)
from allfives_env.env.encoders import default_layout
from allfives_env.rules import RulesConfig


def _write(path, seed):
    torch.manual_seed(seed)
    rules = RulesConfig(num_players=2)
    net = PolicyNet(default_layout(2).size, [8])
    torch.save(with_digest({"format": FORMAT, "version": VERSION, "policy": policy_record(net, rules)}), path)
    return net


def test_a_policy_file_rewritten_in_place_is_read_again(tmp_path):
    path = str(tmp_path / "policy.pt")
    first = _write(path, seed=1)
    x = np.random.default_rng(0).standard_normal((3, first.obs_dim)).astype(np.float32)
    _, _, loaded = load_numpy_policy(path)
    with torch.no_grad():
        np.testing.assert_allclose(loaded.values(x), first(torch.from_numpy(x))[1].numpy().reshape(-1), atol=1e-5)
    size = os.path.getsize(path)
    stamp = os.stat(path).st_mtime_ns
    second = _write(path, seed=2)
    assert os.path.getsize(path) == size  # the same shape: the same size, so only the mtime can tell
    os.utime(path, ns=(stamp + 10**9, stamp + 10**9))  # a later write, even on a coarse clock
    _, _, reloaded = load_numpy_policy(path)
    with torch.no_grad():
        expected = second(torch.from_numpy(x))[1].numpy().reshape(-1)
    assert not np.allclose(expected, loaded.values(x))  # the two networks differ on these inputs
    np.testing.assert_allclose(reloaded.values(x), expected, atol=1e-5)


def test_a_policy_path_that_exists_but_is_no_regular_file_is_named_as_such(tmp_path):
    """Catches a FIFO (or device) given as a policy file reported as 'not found' though it exists."""
    fifo = tmp_path / "pipe.pt"
    os.mkfifo(fifo)
    with pytest.raises(CheckpointError, match=r"checkpoint '.*pipe\.pt' is not a regular file \(hint\)$") as err:
        check_policy_file(str(fifo), " (hint)")
    assert "not found" not in str(err.value)
    with pytest.raises(ValueError, match="is not a regular file"):
        make_agent(f"ppo:{fifo}")
