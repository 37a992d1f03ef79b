"""GAE over per-seat transition chains.

Transitions are stored flat, in time order. Transition ``i`` belongs to one
(game, seat) chain; ``next_index[i]`` is the same seat's next decision in the
same game (always a later index), ``done[i]`` marks the last decision of the
seat in an episode (its reward then includes the episode's final reward). A
transition with neither is *pending*: the rollout ended before its seat acted
again, so it is not trained on now (it is carried into the next rollout).

For a trainable transition (``done`` or a known next)::

    delta_i = r_i + gamma * V(next_i) * (1 - done_i) - V_i
    A_i     = delta_i + gamma * lambda * (1 - done_i) * A_next   (A_next = 0 when next is pending)

which is ordinary GAE along each seat's own sequence of decisions, with the
chain bootstrapped from the value of its pending decision at a rollout's end.
"""

import numba
import numpy as np


@numba.njit(cache=True)
def _chain_gae(reward, value, done, next_index, valid, gamma, lam, adv, trainable):
    for i in range(reward.shape[0] - 1, -1, -1):
        if not valid[i]:
            continue
        if done[i]:
            adv[i] = reward[i] - value[i]
            trainable[i] = True
        else:
            j = next_index[i]
            if j < 0:
                continue  # pending: no successor yet
            delta = reward[i] + gamma * value[j] - value[i]
            adv[i] = delta + (gamma * lam * adv[j] if trainable[j] else 0.0)
            trainable[i] = True


def chain_gae(reward, value, done, next_index, gamma, lam, valid=None):
    """``(advantages, returns, trainable)`` for flat transition chains (see the module docstring).

    ``reward``, ``value`` float; ``done`` bool; ``next_index`` int (-1: none);
    ``valid`` bool marks slots that hold a transition (default: all). Entries that
    are not trainable have advantage 0."""
    reward = np.ascontiguousarray(reward, np.float64)
    value = np.ascontiguousarray(value, np.float64)
    done = np.ascontiguousarray(done, np.bool_)
    next_index = np.ascontiguousarray(next_index, np.int64)
    valid = np.ones(reward.shape[0], np.bool_) if valid is None else np.ascontiguousarray(valid, np.bool_)
    adv = np.zeros(reward.shape[0], np.float64)
    trainable = np.zeros(reward.shape[0], np.bool_)
    _chain_gae(reward, value, done, next_index, valid, float(gamma), float(lam), adv, trainable)
    returns = np.where(trainable, adv + value, 0.0)
    return adv, returns, trainable
