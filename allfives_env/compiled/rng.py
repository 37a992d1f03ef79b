"""A counter-based random generator per game (SplitMix64), compiled.

Each game ``b`` owns one uint64 counter ``rng[b]``; the batched env, the
compiled search and the training collector draw from it, never from a global
generator.
"""

import numpy as np
from numba import njit

from .state import OPTS

_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_MIX1 = _U(0xBF58476D1CE4E5B9)
_MIX2 = _U(0x94D049BB133111EB)
_S27, _S30, _S31, _S32 = _U(27), _U(30), _U(31), _U(32)


@njit(**OPTS)
def mix64(z):
    """SplitMix64 output function (a bijection of uint64)."""
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(**OPTS)
def next_u64(rng, b):
    """Next output of game ``b``'s SplitMix64 stream."""
    z = rng[b] + _GOLDEN
    rng[b] = z
    return mix64(z)


@njit(**OPTS)
def rand_below(rng, b, bound):
    """An integer in ``[0, bound)`` (multiply-shift; bias below bound / 2**32)."""
    return np.int64(((next_u64(rng, b) >> _S32) * _U(bound)) >> _S32)


@njit(**OPTS)
def stream_start(base, k):
    """The start of stream ``k`` (a non-negative integer) of seed ``base``: mix64(base ^ mix64(k + 1))."""
    return mix64(base ^ mix64(_U(k) + _U(1)))


@njit(**OPTS)
def seed_streams(rng, base):
    """Independent streams: game ``b`` starts from stream ``b`` (:func:`stream_start`)."""
    for b in range(rng.shape[0]):
        rng[b] = stream_start(base, b)


@njit(**OPTS)
def seed_streams_by_id(rng, base, ids):
    """Game ``b`` starts from stream ``ids[b]`` (uint64): games with equal ids share a stream;
    ``ids = arange(B)`` gives :func:`seed_streams`."""
    for b in range(rng.shape[0]):
        rng[b] = stream_start(base, ids[b])


@njit(**OPTS)
def random_legal_actions(mask, rng, out):
    """A uniformly random legal action per row of ``mask`` from per-row streams ``rng``."""
    for b in range(mask.shape[0]):
        total = 0
        for a in range(mask.shape[1]):
            total += mask[b, a]
        out[b] = -1  # a row without legal actions (no game gives one) gets -1
        k = rand_below(rng, b, total)
        for a in range(mask.shape[1]):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1
    return out
