"""Scratch: a publicly checkable doubles convention between champion partners (4 players).

``conv:Conv:x=0,read=true,play=true`` -- after the champion chooses a non-double placement T (its own
search), it plays instead its best-valued playable double D if some placement of D scores at least
points(T) - x immediately.  Because the test uses only public numbers (the layout and the tile played),
the partner reads it exactly: when the partner placed a non-double T, it holds no double with a
placement scoring >= points(T) - x on the layout it faced.  Those doubles are forbidden in its hand
when the candidate worlds are drawn (falling back to no exclusion if the exclusions cannot all hold).
"""
import numpy as np
from numba import njit

import allfives_env.agents.champion as ch
from allfives_env.agents.hand_reading import HandReader, placement_log_likelihood
from allfives_env.agents.search_compiled import draw_world, load_view
from allfives_env.compiled.rules import count_after, points_for_count
from allfives_env.compiled.state import LEAD_TILE, NUM_FIELDS, OPEN
from allfives_env.rules.actions import DRAW, placement_id, slot_of, tile_of
from allfives_env.rules.tiles import TILE_HIGH, TILE_LOW

DOUBLES = [t for t in range(28) if TILE_LOW[t] == TILE_HIGH[t]]
IS_DOUBLE = np.array([TILE_LOW[t] == TILE_HIGH[t] for t in range(28)])


def double_placements(st, b, tile):
    """Slots where ``tile`` (a double) may be placed in row ``b`` of a public position."""
    if st[b, LEAD_TILE] < 0:
        return [0]
    return [s for s in range(4) if st[b, OPEN + s] == TILE_LOW[tile]]


def best_points(st, b, tile, divisor):
    slots = double_placements(st, b, tile)
    if not slots:
        return None
    return max(points_for_count(count_after(st, b, tile, s), divisor) for s in slots)


@njit(cache=False)
def draw_forbidden_worlds(st, hands, scores, seat, n, candidates, bst, bhands, bscores, rng, tiles, forbid, no_forbid,
                          count, est, ehands, escores, mover, chosen, later, cfg, target, temperature, floor, legal,
                          values, lst, lhands, lscores, replies, loglik):
    for w in range(candidates):
        draw_world(st, hands, scores, 0, seat, n, bst, bhands, bscores, w, rng, 0, tiles, 50, forbid, no_forbid)
        loglik[w] = placement_log_likelihood(bhands, w, count, est, ehands, escores, mover, chosen, later, cfg, target,
                                             temperature, floor, legal, values, lst, lhands, lscores, replies)


class ConvReader(HandReader):
    x = 0.0
    divisor = 5
    use_convention = True

    def read(self, view, cfg, target):
        from allfives_env.agents.hand_reading import read_placements, readable_seats
        load_view(view, self.st, self.hands, self.scores)
        events = np.array([(e[0], e[1], e[3]) for e in view.events], np.float64).reshape(-1, 3)
        readable = readable_seats(view.seat, view.num_players, self.partner_only)
        self.count = read_placements(self.st, self.hands, self.scores, view.seat, view.num_players, readable,
                                     events[:, 0].astype(np.int64), events[:, 1].astype(np.int64), events[:, 2],
                                     len(events), np.asarray(view.hand_start_scores, np.float64), self.sizes,
                                     self.last_draw, self.est, self.ehands, self.escores, self.mover, self.chosen,
                                     self.later)
        partner = (view.seat + 2) % 4
        forbid = np.zeros(4, np.int64)
        if self.use_convention:
            for k in range(self.count):
                if self.mover[k] != partner:
                    continue
                t = tile_of(int(self.chosen[k]))
                if IS_DOUBLE[t]:
                    continue
                p_t = points_for_count(count_after(self.est, k, t, slot_of(int(self.chosen[k]))), self.divisor)
                for d in DOUBLES:
                    pd = best_points(self.est, k, d, self.divisor)
                    if pd is not None and pd >= p_t - self.x:
                        forbid[partner] |= 1 << d
        self.last_forbid = forbid
        draw_forbidden_worlds(self.st, self.hands, self.scores, view.seat, view.num_players, self.candidates, self.bst,
                              self.bhands, self.bscores, self.rng, self.tiles, forbid, self.no_forbid, self.count,
                              self.est, self.ehands, self.escores, self.mover, self.chosen, self.later, cfg, target,
                              self.temperature, self.floor, self.legal, self.values, self.lst, self.lhands,
                              self.lscores, self.replies, self.loglik)
        top = self.loglik.max()
        if np.isfinite(top):
            np.exp(self.loglik - top, out=self.weights)
        else:
            self.weights[:] = 1.0


class Conv(ch.ChampionAgent):
    def __init__(self, x=0.0, read=True, play=True, **kw):
        super().__init__(**kw)
        self.x = float(x)
        self.read_conv = str(read).lower() in ("true", "1", "yes")
        self.play_conv = str(play).lower() in ("true", "1", "yes")
        self._st = np.zeros((1, NUM_FIELDS), np.int8)
        self._hands = np.zeros((1, 8), np.int64)
        self.overrides = 0

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        assert self.reader is not None and config.num_players == 4
        self.reader = ConvReader(config.num_sides, int(rng.integers(2 ** 62)), partner_only=True)
        self.reader.x, self.reader.divisor = self.x, config.divisor
        self.reader.use_convention = self.read_conv
        self._scores = np.zeros((1, config.num_sides), np.float64)
        self._last = None

    def action_values(self, view, legal_actions):
        values = super().action_values(view, legal_actions)
        self._last = (list(legal_actions), list(values))
        return values

    def act(self, view, legal_actions):
        self._last = None
        a = super().act(view, legal_actions)
        if not self.play_conv or a >= DRAW or IS_DOUBLE[tile_of(a)] or self._last is None:
            return a  # a sure win or a forced / only move is not read either way... (only move: no double playable)
        load_view(view, self._st, self._hands, self._scores)
        d = view.divisor
        p_t = points_for_count(count_after(self._st, 0, tile_of(a), slot_of(a)), d)
        legal, values = self._last
        best, best_v = None, -np.inf
        for act, v in zip(legal, values):
            t = tile_of(act)
            if IS_DOUBLE[t] and points_for_count(count_after(self._st, 0, t, slot_of(act)), d) >= p_t - self.x:
                if v > best_v:
                    best, best_v = act, v
        if best is not None:
            self.overrides += 1
            return best
        return a
