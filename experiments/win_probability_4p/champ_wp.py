"""Scratch: the 4-player champion whose rollouts are valued by the chance of winning the game from the
scores at the hand's end (win_table_4p.npy, heuristic self-play hands), in points at the current
exchange rate (the table's slope at the current scores), instead of the points margin plus win_value."""
import os
import types

import numpy as np
from numba import njit

from allfives_env.agents import search_compiled as sc
from allfives_env.agents.champion import ChampionAgent
from allfives_env.compiled.rules import apply_action, legal_placements, side_of
from allfives_env.compiled.state import C_N, F_TARGET, GAME_OVER, HAND_OVER, OPTS, TO_MOVE, WINNERS

TABLE = np.load(os.path.join(os.path.dirname(__file__), "win_table_4p.npy"))


@njit(**OPTS)
def at(table, i, j):
    n = table.shape[0]
    return table[min(max(i, 0), n - 1), min(max(j, 0), n - 1)]


@njit(**OPTS)
def wp_values(st, hands, scores, b, cfg, fcfg, samples, prior_weight, weights, attempts, rng, wst, whands,
              wscores, wgains, legal, values, prior, tiles, replies, no_forbid, rlegal, rvalues, rst, rhands,
              rscores, rreplies, bst, bhands, bscores, bank_rows, table, min_slope):
    n_legal = legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    n = cfg[C_N]
    target = fcfg[F_TARGET]
    seat = st[b, TO_MOVE]
    side = side_of(seat, n)
    i, j = int(scores[b, side] // 5), int(scores[b, 1 - side] // 5)
    w0 = at(table, i, j)
    slope = 0.5 * ((at(table, i + 1, j) - at(table, i - 1, j)) + (at(table, i, j - 1) - at(table, i, j + 1))) / 10.0
    slope = max(slope, min_slope)
    for k in range(n_legal):
        values[k] = 0.0
    worlds = bank_rows.shape[0] if bank_rows.shape[0] else samples
    for w in range(worlds):
        if bank_rows.shape[0]:
            sc.world_from_bank(bst, bhands, bscores, bank_rows[w], wst, whands, wscores, 0, rng, 0)
        else:
            sc.draw_world(st, hands, scores, b, seat, n, wst, whands, wscores, 0, rng, 0, tiles, attempts,
                          no_forbid, no_forbid)
        for k in range(n_legal):
            sc.copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            while not wst[1, HAND_OVER]:
                a = sc.heuristic_move(wst, 1, whands, wscores, cfg, target, weights, rlegal, rvalues, rst, rhands,
                                      rscores, rreplies)
                apply_action(wst, 1, whands, wscores, wgains, cfg, target, a)
            if wst[1, GAME_OVER]:
                won = (wst[1, WINNERS] >> side) & 1
                lost = (wst[1, WINNERS] >> (1 - side)) & 1
                u = 0.5 if (won and lost) else (1.0 if won else 0.0)
            else:
                u = at(table, int(wscores[1, side] // 5), int(wscores[1, 1 - side] // 5))
            values[k] += (u - w0) / slope
    for k in range(n_legal):
        values[k] /= worlds
    if prior_weight != 0.0:
        sc.heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, weights, wst, whands, wscores, 2,
                            replies, prior)
        for k in range(n_legal):
            values[k] += prior_weight * min(prior[k], 1e3)
    return n_legal


def _values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
    bst, bhands, bscores, rows = self.no_bank if bank is None else bank
    n = wp_values(st, hands, scores, b, cfg, fcfg, self.samples, self.prior_weight, sc.HEURISTIC_WEIGHTS,
                  self.attempts, self.rng, self.wst, self.whands, self.wscores, self.wgains, self.legal, self.out,
                  self.prior, self.tiles, self.replies, self.no_forbid, self.rlegal, self.rvalues, self.rst,
                  self.rhands, self.rscores, self.rreplies, bst, bhands, bscores, rows, TABLE, self.min_slope)
    return self.legal[:n].copy(), self.out[:n].copy()


class ChampWP(ChampionAgent):
    name = "champwp"

    def __init__(self, min_slope=0.001, **options):
        super().__init__(**options)
        self.min_slope = float(min_slope)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        s = self._compiled.searcher
        s.min_slope = self.min_slope
        s.values = types.MethodType(_values, s)
