"""Scratch: heuristic rollouts whose last few tiles are played exactly (max-n over the sampled world).

In each rollout the heuristic plays until the hands hold at most ``L`` tiles in all; from there every
seat plays the move that is best for its own side in that (fully known) world: a perfect-information
solve of the hand's end (PIMC's double-dummy idea). Spec: ``endgame:EGChampion,limit=6``.
"""
import numpy as np
from numba import njit

from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.search_compiled import (
    HEURISTIC_WEIGHTS, Searcher, copy_game, draw_world, heuristic_move, heuristic_values, legal_placements,
    outcome_value)
from allfives_env.compiled.rules import apply_action, forced_action, popcount, side_of
from allfives_env.compiled.state import C_N, C_SIDES, F_TARGET, HAND_OVER, NUM_FIELDS, TO_MOVE

OPTS = dict(cache=False, nogil=True)

ROWS = 160


@njit(**OPTS)
def hand_tiles(st, b, hands, n):
    t = 0
    for s in range(n):
        t += popcount(hands[b, s])
    return t


@njit(**OPTS)
def solve(st, hands, scores, gains, level, cfg, target, before, win_value, legal, out, nodes, tmp):
    """out[level, side] := the value of row ``level`` for each side when every seat plays its own side's
    best (max-n, ties to the first placement); rows above ``level`` are scratch."""
    nodes[0] += 1
    sides = cfg[C_SIDES]
    if st[level, HAND_OVER]:
        for s in range(sides):
            out[level, s] = outcome_value(st, level, scores, sides, s, before, win_value)
        return
    nxt = level + 1
    forced = forced_action(st, level, hands)
    if forced >= 0:
        copy_game(st, hands, scores, level, st, hands, scores, nxt)
        apply_action(st, nxt, hands, scores, gains, cfg, target, forced)
        solve(st, hands, scores, gains, nxt, cfg, target, before, win_value, legal, out, nodes, tmp)
        for s in range(sides):
            out[level, s] = out[nxt, s]
        return
    n_legal = legal_placements(st, level, hands, tmp)
    for k in range(n_legal):
        legal[level, k] = tmp[k]
    mover = side_of(st[level, TO_MOVE], cfg[C_N])
    best = -1e18
    for k in range(n_legal):
        copy_game(st, hands, scores, level, st, hands, scores, nxt)
        apply_action(st, nxt, hands, scores, gains, cfg, target, legal[level, k])
        solve(st, hands, scores, gains, nxt, cfg, target, before, win_value, legal, out, nodes, tmp)
        if out[nxt, mover] > best:
            best = out[nxt, mover]
            for s in range(sides):
                out[level, s] = out[nxt, s]


@njit(**OPTS)
def eg_rollout_value(st, b, hands, scores, gains, cfg, target, side, before, win_value, weights, rlegal, rvalues,
                     lst, lhands, lscores, replies, limit, sst, shands, sscores, sgains, slegal, sout, nodes):
    n = cfg[C_N]
    while not st[b, HAND_OVER] and hand_tiles(st, b, hands, n) > limit:
        action = heuristic_move(st, b, hands, scores, cfg, target, weights, rlegal, rvalues, lst, lhands, lscores,
                                replies)
        apply_action(st, b, hands, scores, gains, cfg, target, action)
    if st[b, HAND_OVER]:
        return outcome_value(st, b, scores, cfg[C_SIDES], side, before, win_value)
    copy_game(st, hands, scores, b, sst, shands, sscores, 0)
    solve(sst, shands, sscores, sgains, 0, cfg, target, before, win_value, slegal, sout, nodes, rlegal)
    return sout[0, side]


@njit(**OPTS)
def eg_search_values(st, hands, scores, b, cfg, fcfg, samples, win_value, prior_weight, weights, attempts,
                     rng, rng_slot, wst, whands, wscores, wgains, legal, values, prior, tiles, replies, before, forbid,
                     no_forbid, rlegal, rvalues, rst, rhands, rscores, rreplies, limit, sst, shands, sscores, sgains,
                     slegal, sout, nodes):
    n_legal = legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    n = cfg[C_N]
    target = fcfg[F_TARGET]
    seat = st[b, TO_MOVE]
    side = side_of(seat, n)
    for k in range(n_legal):
        values[k] = 0.0
    for s in range(scores.shape[1]):
        before[s] = scores[b, s]
    for i in range(samples):
        draw_world(st, hands, scores, b, seat, n, wst, whands, wscores, 0, rng, rng_slot, tiles, attempts,
                   forbid, no_forbid)
        for k in range(n_legal):
            copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            values[k] += eg_rollout_value(wst, 1, whands, wscores, wgains, cfg, target, side, before, win_value,
                                          weights, rlegal, rvalues, rst, rhands, rscores, rreplies, limit, sst,
                                          shands, sscores, sgains, slegal, sout, nodes)
    for k in range(n_legal):
        values[k] /= samples
    if prior_weight != 0.0:
        heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, wst, whands, wscores, 2,
                         replies, prior)
        for k in range(n_legal):
            values[k] += prior_weight * min(prior[k], 1e3)
    return n_legal


class EGSearcher(Searcher):
    def setup(self, limit, num_sides):
        self.limit = int(limit)
        self.sst = np.zeros((ROWS, NUM_FIELDS), np.int8)
        self.shands = np.zeros((ROWS, 8), np.int64)
        self.sscores = np.zeros((ROWS, num_sides), np.float64)
        self.sgains = np.zeros((ROWS, num_sides), np.float64)
        self.slegal = np.zeros((ROWS, 112), np.int64)
        self.sout = np.zeros((ROWS, num_sides), np.float64)
        self.nodes = np.zeros(1, np.int64)

    def values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
        assert bank is None
        n = eg_search_values(st, hands, scores, b, cfg, fcfg, self.samples, self.win_value, self.prior_weight,
                             HEURISTIC_WEIGHTS, self.attempts, self.rng, 0, self.wst, self.whands, self.wscores,
                             self.wgains, self.legal, self.out, self.prior, self.tiles, self.replies, self.before,
                             self.no_forbid if forbid is None else forbid, self.no_forbid, self.rlegal,
                             self.rvalues, self.rst, self.rhands, self.rscores, self.rreplies, self.limit, self.sst,
                             self.shands, self.sscores, self.sgains, self.slegal, self.sout, self.nodes)
        return self.legal[:n].copy(), self.out[:n].copy()


class EGChampion(ChampionAgent):
    """The champion with endgame-solved rollouts (``limit`` tiles left in all hands)."""

    def __init__(self, limit=6, **kw):
        super().__init__(**kw)
        self.limit = int(limit)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        old = self._compiled.searcher
        eg = EGSearcher.__new__(EGSearcher)
        eg.__dict__.update(old.__dict__)
        eg.setup(self.limit, config.num_sides)
        self._compiled.searcher = eg
