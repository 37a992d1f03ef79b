"""Scratch: the champion valuing each rollout by the win probability it leaves (a table over the
scores at the hand's end, /tmp/exp/win_table_2p.npy) instead of the points margin."""
import types
import numpy as np
from numba import njit
from allfives_env.agents.search import ChampionAgent
from allfives_env.agents import search_compiled as sc
from allfives_env.compiled.rules import apply_action, side_of
from allfives_env.compiled.state import C_N, F_TARGET, GAME_OVER, HAND_OVER, OPTS, TO_MOVE, WINNERS

TABLE = np.load("/tmp/exp/win_table_2p.npy")


@njit(**OPTS)
def table_value(table, scores, b, side):
    n = table.shape[0]
    i = min(int(scores[b, side] // 5), n - 1)
    j = min(int(scores[b, 1 - side] // 5), n - 1)
    return table[i, j]


@njit(**OPTS)
def util_values(st, hands, scores, b, cfg, fcfg, samples, weights, attempts, rng, wst, whands, wscores, wgains,
                legal, values, tiles, forbid, rlegal, rvalues, rst, rhands, rscores, rreplies, table, blend):
    n_legal = sc.legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    n = cfg[C_N]
    target = fcfg[F_TARGET]
    side = side_of(st[b, TO_MOVE], n)
    for k in range(n_legal):
        values[k] = 0.0
    for _ in range(samples):
        sc.draw_world(st, hands, scores, b, st[b, TO_MOVE], n, wst, whands, wscores, 0, rng, 0, tiles, attempts,
                      forbid, forbid)
        for k in range(n_legal):
            sc.copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            while not wst[1, HAND_OVER]:
                a = sc.heuristic_move(wst, 1, whands, wscores, cfg, target, weights, rlegal, rvalues, rst, rhands,
                                      rscores, rreplies)
                apply_action(wst, 1, whands, wscores, wgains, cfg, target, a)
            if wst[1, GAME_OVER]:
                u = 1.0 if (wst[1, WINNERS] >> side) & 1 else 0.0
            else:
                u = table_value(table, wscores, 1, side)
            margin = (wscores[1, side] - scores[b, side]) - (wscores[1, 1 - side] - scores[b, 1 - side])
            values[k] += u + blend * margin
    for k in range(n_legal):
        values[k] /= samples
    return n_legal


def _values(self, st, hands, scores, b, cfg, fcfg, forbid=None):
    n = util_values(st, hands, scores, b, cfg, fcfg, self.samples, sc.HEURISTIC_WEIGHTS, self.attempts, self.rng,
                    self.wst, self.whands, self.wscores, self.wgains, self.legal, self.out, self.tiles,
                    self.no_forbid, self.rlegal, self.rvalues, self.rst, self.rhands, self.rscores, self.rreplies,
                    TABLE, self.blend)
    if self.pw:
        sc.heuristic_values(st, b, hands, scores, cfg, fcfg[F_TARGET], self.legal, n, sc.HEURISTIC_WEIGHTS,
                            self.wst, self.whands, self.wscores, 2, self.replies, self.prior)
        side = side_of(st[b, TO_MOVE], cfg[C_N])
        i = min(int(scores[b, side] // 5), 48); j = min(int(scores[b, 1 - side] // 5), 49)
        slope = max((TABLE[i + 1, j] - TABLE[i, j]) / 5.0, 0.0) + self.blend
        for k in range(n):
            self.out[k] += self.pw * min(self.prior[k], 1e3) * slope
    return self.legal[:n].copy(), self.out[:n].copy()


class ChampU(ChampionAgent):
    name = "champu"

    def __init__(self, samples=None, prior_weight=1.0, blend=0.0):
        super().__init__(samples=samples, prior_weight=prior_weight)
        self.blend = float(blend)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        s = self._compiled.searcher
        s.pw, s.blend = self.prior_weight, self.blend
        s.values = types.MethodType(_values, s)
