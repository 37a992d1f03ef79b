"""Scratch: the champion whose rollouts play every seat as a softened heuristic (softmax over its values).

``soft:Soft:temp=2`` -- each rollout move is drawn from softmax(min(value, 1000) / temp) over the heuristic's
values of the legal placements; the noise stream restarts for every placement of a world (common random numbers).
"""
import numpy as np
from numba import njit

import allfives_env.agents.champion as ch
import allfives_env.agents.search_compiled as sc
from allfives_env.compiled.rng import rand_below
from allfives_env.compiled.rules import apply_action, forced_action, side_of
from allfives_env.compiled.state import C_N, C_SIDES, F_TARGET, HAND_OVER, OPTS
from allfives_env.vector.batched import make_rng_state

import os
#: set before the kernels compile (a global read by numba as a constant): soft play for the opponents only
OPP_ONLY = np.array([int(os.environ.get("SOFT_OPP_ONLY", "0"))])


@njit(**OPTS)
def soft_move(st, b, hands, scores, cfg, target, weights, legal, values, lst, lhands, lscores, replies, temp, nrng):
    forced = forced_action(st, b, hands)
    if forced >= 0:
        return forced
    n_legal = sc.legal_placements(st, b, hands, legal)
    if n_legal == 1:
        return legal[0]
    sc.heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, lst, lhands, lscores, 0,
                        replies, values)
    best = -np.inf
    for k in range(n_legal):
        values[k] = min(values[k], 1e3) / temp
        best = max(best, values[k])
    z = 0.0
    for k in range(n_legal):
        values[k] = np.exp(values[k] - best)
        z += values[k]
    u = rand_below(nrng, 0, 1 << 30) / float(1 << 30) * z
    acc = 0.0
    for k in range(n_legal):
        acc += values[k]
        if u < acc:
            return legal[k]
    return legal[n_legal - 1]


@njit(**OPTS)
def soft_rollout(st, b, hands, scores, gains, cfg, target, side, before, win_value, weights, legal, values,
                 lst, lhands, lscores, replies, temp, nrng):
    while not st[b, HAND_OVER]:
        if OPP_ONLY[0] and side_of(st[b, sc.TO_MOVE], cfg[C_N]) == side:
            action = sc.heuristic_move(st, b, hands, scores, cfg, target, weights, legal, values, lst, lhands,
                                       lscores, replies)
        else:
            action = soft_move(st, b, hands, scores, cfg, target, weights, legal, values, lst, lhands, lscores,
                               replies, temp, nrng)
        apply_action(st, b, hands, scores, gains, cfg, target, action)
    return sc.outcome_value(st, b, scores, cfg[C_SIDES], side, before, win_value)


@njit(**OPTS)
def soft_values(st, hands, scores, b, cfg, fcfg, win_value, prior_weight, weights, rng, wst, whands, wscores,
                wgains, legal, values, prior, replies, before, rlegal, rvalues, rst, rhands, rscores, rreplies, bst,
                bhands, bscores, bank_rows, temp, nrng, soft_every):
    n_legal = sc.legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    target = fcfg[F_TARGET]
    seat = st[b, sc.TO_MOVE]
    side = side_of(seat, cfg[C_N])
    for k in range(n_legal):
        values[k] = 0.0
    for s in range(scores.shape[1]):
        before[s] = scores[b, s]
    worlds = bank_rows.shape[0]
    for i in range(worlds):
        sc.world_from_bank(bst, bhands, bscores, bank_rows[i], wst, whands, wscores, 0, rng, 0)
        start = nrng[0]
        for k in range(n_legal):
            nrng[0] = start
            sc.copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            if i % soft_every == soft_every - 1:
                values[k] += soft_rollout(wst, 1, whands, wscores, wgains, cfg, target, side, before, win_value,
                                          weights, rlegal, rvalues, rst, rhands, rscores, rreplies, temp, nrng)
            else:
                values[k] += sc.heuristic_rollout_value(wst, 1, whands, wscores, wgains, cfg, target, side, before,
                                                        win_value, weights, rlegal, rvalues, rst, rhands, rscores,
                                                        rreplies)
        nrng[0] = start + np.uint64(0x9E3779B97F4A7C15) * np.uint64(977)
    for k in range(n_legal):
        values[k] /= worlds
    if prior_weight != 0.0:
        sc.heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, wst, whands, wscores, 2,
                            replies, prior)
        for k in range(n_legal):
            values[k] += prior_weight * min(prior[k], 1e3)
    return n_legal


def _soft_values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
    bst, bhands, bscores, rows = bank
    n = soft_values(st, hands, scores, b, cfg, fcfg, self.win_value, self.prior_weight, sc.HEURISTIC_WEIGHTS,
                    self.rng, self.wst, self.whands, self.wscores, self.wgains, self.legal, self.out, self.prior,
                    self.replies, self.before, self.rlegal, self.rvalues, self.rst, self.rhands, self.rscores,
                    self.rreplies, bst, bhands, bscores, rows, self.temp, self.nrng, self.soft_every)
    return self.legal[:n].copy(), self.out[:n].copy()


class Soft(ch.ChampionAgent):
    """The champion with softened-heuristic rollouts (every ``every``-th world; 1: all)."""

    def __init__(self, temp=2.0, every=1, **kw):
        super().__init__(**kw)
        self.temp, self.every = float(temp), int(every)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        assert self.reader is not None  # the bank path: 4 players, read=partner
        searcher = self._compiled.searcher
        searcher.temp, searcher.soft_every = self.temp, self.every
        searcher.nrng = make_rng_state(int(rng.integers(2 ** 62)), 1)
        searcher.values = _soft_values.__get__(searcher)
