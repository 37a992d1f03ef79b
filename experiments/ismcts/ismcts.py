"""Scratch: single-observer ISMCTS on the compiled core, as the champion's search.

Each iteration draws a world from what the seat knows, walks a tree of placements keyed by
(seat, action) with UCB over the children legal in that world (availability counts), expands
one node, plays the hand out with heuristic rollouts and backs up each side's margin (plus or
minus win_value) to the nodes its seats chose. Forced moves (draws, passes, a single legal
placement) are applied without a node; the tree stops where the observer itself draws (what it
draws changes its information). Root values: each root child's mean plus prior_weight times the
heuristic's value, as the flat search.
"""
import math

import numpy as np
from numba import njit

from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.search_compiled import (
    HEURISTIC_WEIGHTS,
    copy_game,
    draw_world,
    heuristic_move,
    heuristic_values,
    legal_placements,
    load_view,
    outcome_value,
)
from allfives_env.compiled.rng import rand_below
from allfives_env.compiled.rules import apply_action, forced_action, side_of
from allfives_env.compiled.state import C_N, C_SIDES, DRAW, F_TARGET, HAND_OVER, NUM_FIELDS, OPTS, TO_MOVE

MAXN = 200_000


@njit(**OPTS)
def ismcts_values(st, hands, scores, seat, cfg, target, iters, per_move, c, own_only, win_value, prior_weight, weights, rng,
                  wst, whands, wscores, wgains, tiles, no_forbid, before, sidev,
                  n_action, n_seat, n_first, n_next, n_N, n_W, n_A, path, legal, kids,
                  rlegal, rvalues, rst, rhands, rscores, rreplies, out_legal, out_values, prior):
    n = cfg[C_N]
    sides = cfg[C_SIDES]
    n_root = legal_placements(st, 0, hands, out_legal)
    for s in range(sides):
        before[s] = scores[0, s]
    # root node 0
    count = 1
    n_first[0] = -1
    n_next[0] = -1
    n_N[0] = 0.0
    total = iters if per_move == 0 else per_move * n_root
    for it in range(total):
        draw_world(st, hands, scores, 0, seat, n, wst, whands, wscores, 0, rng, 0, tiles, 50, no_forbid, no_forbid)
        node = 0
        depth = 0
        expanded = False
        while not wst[0, HAND_OVER]:
            f = forced_action(wst, 0, whands)
            if f >= 0:
                if f == DRAW and wst[0, TO_MOVE] == seat:
                    break
                apply_action(wst, 0, whands, wscores, wgains, cfg, target, f)
                continue
            nl = legal_placements(wst, 0, whands, legal)
            if nl == 1 and node != 0:
                apply_action(wst, 0, whands, wscores, wgains, cfg, target, legal[0])
                continue
            if expanded or count >= n_action.shape[0] - 1:
                break
            mover = wst[0, TO_MOVE]
            if own_only and mover != seat:
                a = heuristic_move(wst, 0, whands, wscores, cfg, target, weights, rlegal, rvalues, rst, rhands,
                                   rscores, rreplies)
                ch = n_first[node]
                while ch >= 0:
                    if n_action[ch] == a and n_seat[ch] == mover:
                        break
                    ch = n_next[ch]
                if ch < 0:
                    ch = count
                    count += 1
                    n_action[ch] = a
                    n_seat[ch] = mover
                    n_first[ch] = -1
                    n_next[ch] = n_first[node]
                    n_first[node] = ch
                    n_N[ch] = 0.0
                    n_W[ch] = 0.0
                    n_A[ch] = 1.0
                    expanded = True
                apply_action(wst, 0, whands, wscores, wgains, cfg, target, a)
                node = ch
                path[depth] = node
                depth += 1
                continue
            n_unexp = 0
            for k in range(nl):
                kids[k] = -1
                ch = n_first[node]
                while ch >= 0:
                    if n_action[ch] == legal[k] and n_seat[ch] == mover:
                        kids[k] = ch
                        break
                    ch = n_next[ch]
                if kids[k] < 0:
                    n_unexp += 1
            if n_unexp > 0:
                pick = rand_below(rng, 0, n_unexp)
                for k in range(nl):
                    if kids[k] < 0:
                        if pick == 0:
                            ch = count
                            count += 1
                            n_action[ch] = legal[k]
                            n_seat[ch] = mover
                            n_first[ch] = -1
                            n_next[ch] = n_first[node]
                            n_first[node] = ch
                            n_N[ch] = 0.0
                            n_W[ch] = 0.0
                            n_A[ch] = 1.0
                            kids[k] = ch
                            chosen = k
                            break
                        pick -= 1
                for k in range(nl):
                    if kids[k] >= 0 and k != chosen:
                        n_A[kids[k]] += 1.0
                expanded = True
            else:
                best = -1
                best_u = -1e300
                for k in range(nl):
                    ch = kids[k]
                    n_A[ch] += 1.0
                    u = n_W[ch] / n_N[ch] + c * math.sqrt(math.log(n_A[ch]) / n_N[ch])
                    if u > best_u:
                        best_u = u
                        best = k
                chosen = best
            apply_action(wst, 0, whands, wscores, wgains, cfg, target, legal[chosen])
            node = kids[chosen]
            path[depth] = node
            depth += 1
        while not wst[0, HAND_OVER]:
            a = heuristic_move(wst, 0, whands, wscores, cfg, target, weights, rlegal, rvalues, rst, rhands, rscores,
                               rreplies)
            apply_action(wst, 0, whands, wscores, wgains, cfg, target, a)
        for s in range(sides):
            sidev[s] = outcome_value(wst, 0, wscores, sides, s, before, win_value)
        for d in range(depth):
            nd = path[d]
            n_N[nd] += 1.0
            n_W[nd] += sidev[side_of(n_seat[nd], n)]
    # root values in the order of out_legal
    for k in range(n_root):
        out_values[k] = -1e9
        ch = n_first[0]
        while ch >= 0:
            if n_action[ch] == out_legal[k]:
                out_values[k] = n_W[ch] / n_N[ch] if n_N[ch] > 0 else -1e9
                break
            ch = n_next[ch]
    if prior_weight != 0.0:
        heuristic_values(st, 0, hands, scores, cfg, target, out_legal, n_root, weights, wst, whands, wscores, 2,
                         rreplies, prior)
        for k in range(n_root):
            out_values[k] += prior_weight * min(prior[k], 1e3)
    return n_root


class IsmctsChampion(ChampionAgent):
    """champion with ISMCTS in place of the flat search. Options: per_move (iterations per root
    placement; the flat search's samples by default), c (UCB constant, points)."""

    def __init__(self, per_move=None, c=25.0, own_only=0, **kw):
        super().__init__(**kw)
        self.per_move_opt, self.c, self.own_only = per_move, float(c), int(own_only)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        from allfives_env.vector.batched import make_rng_state

        sides = config.num_sides
        self.per_move = int(self.per_move_opt) if self.per_move_opt is not None else int(self._samples)
        self.rng_state = make_rng_state(int(rng.integers(2 ** 62)), 1)
        self.st, self.hands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.scores = np.zeros((1, sides), np.float64)
        self.wst, self.whands = np.zeros((3, NUM_FIELDS), np.int8), np.zeros((3, 8), np.int64)
        self.wscores, self.wgains = np.zeros((3, sides), np.float64), np.zeros((3, sides), np.float64)
        self.tiles, self.no_forbid = np.zeros(28, np.int64), np.zeros(4, np.int64)
        self.before, self.sidev = np.zeros(sides), np.zeros(sides)
        self.tree = [np.zeros(MAXN, np.int64) for _ in range(4)] + [np.zeros(MAXN) for _ in range(3)]
        self.path = np.zeros(64, np.int64)
        self.legal, self.kids = np.zeros(DRAW, np.int64), np.zeros(DRAW, np.int64)
        self.rlegal, self.rvalues = np.zeros(DRAW, np.int64), np.zeros(DRAW)
        self.rst, self.rhands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.rscores, self.rreplies = np.zeros((1, sides)), np.zeros(28)
        self.out_legal, self.out_values, self.prior = np.zeros(DRAW, np.int64), np.zeros(DRAW), np.zeros(DRAW)

    def action_values(self, view, legal_actions):
        search = self._compiled
        load_view(view, self.st, self.hands, self.scores)
        n = ismcts_values(self.st, self.hands, self.scores, view.seat, search.cfg, search.fcfg[F_TARGET], 0,
                          self.per_move, self.c, self.own_only, self.win_value, self.prior_weight, HEURISTIC_WEIGHTS,
                          self.rng_state, self.wst, self.whands, self.wscores, self.wgains, self.tiles,
                          self.no_forbid, self.before, self.sidev, *self.tree, self.path, self.legal, self.kids,
                          self.rlegal, self.rvalues, self.rst, self.rhands, self.rscores, self.rreplies,
                          self.out_legal, self.out_values, self.prior)
        by_action = dict(zip(self.out_legal[:n].tolist(), self.out_values[:n].tolist()))
        values = [by_action[a] for a in legal_actions]
        if self.leaf_values is None:
            return values
        placements, leaf = self.leaf_values.values(view, None)
        by_action = dict(zip(placements.tolist(), leaf.tolist()))
        return [v + self.value_weight * by_action[a] for v, a in zip(values, legal_actions)]
