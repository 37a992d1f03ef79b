"""Scratch: a 'play to your strength' signalling convention between 4-player champion partners.

Play: among placements the champion values within ``delta`` points of its best, take the one that
leaves the most of its own tiles fitting the layout (ties: the higher value).
Read: the partner's placements weighed by the heuristic model (temperature ``rt``, floor ``rf``) with
``beta`` nats added per own tile that would fit after the placement.
"""
import numpy as np
from numba import njit

from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.hand_reading import HandReader, read_placements, readable_seats
from allfives_env.agents.search import best_action
from allfives_env.agents.greedy import greedy_action
from allfives_env.agents.search_compiled import (HEURISTIC_WEIGHTS, copy_game, draw_world, heuristic_values,
                                                 legal_placements, load_view, F_TARGET)
from allfives_env.compiled.rules import fitting_tiles, layout_count, place, popcount
from allfives_env.compiled.state import COUNT, DRAW, NUM_FIELDS, OPTS, TO_MOVE

STATS = {"decisions": 0, "forced": 0}


@njit(**OPTS)
def fit_after(st, b, hands, action, lst, lhands, lscores):
    """Own tiles left that fit the layout after ``action`` by the seat to move in row b."""
    seat = st[b, TO_MOVE]
    tile, slot = action >> 2, action & 3
    rest = hands[b, seat] & ~(1 << tile)
    for c in range(st.shape[1]):
        lst[0, c] = st[b, c]
    place(lst, 0, tile, slot)
    lst[0, COUNT] = layout_count(lst, 0)
    return popcount(rest & fitting_tiles(lst, 0))


@njit(**OPTS)
def conv_log_likelihood(whands, w, count, est, ehands, escores, mover, chosen, later, cfg, target, temperature,
                        floor, beta, legal, values, lst, lhands, lscores, replies):
    total = 0.0
    for k in range(count):
        s = mover[k]
        ehands[k, s] = whands[w, s] | later[k]
        n_legal = legal_placements(est, k, ehands, legal)
        if n_legal <= 1:
            continue
        heuristic_values(est, k, ehands, escores, cfg, target, legal, n_legal, HEURISTIC_WEIGHTS, lst, lhands, lscores,
                         0, replies, values)
        best, pick = -np.inf, -1
        for j in range(n_legal):
            values[j] = min(values[j], 1e3) / temperature
            if beta != 0.0:
                values[j] += beta * fit_after(est, k, ehands, legal[j], lst, lhands, lscores)
            best = max(best, values[j])
            if legal[j] == chosen[k]:
                pick = j
        if pick < 0:
            return -np.inf
        z = 0.0
        for j in range(n_legal):
            z += np.exp(values[j] - best)
        total += np.log((1.0 - floor) * np.exp(values[pick] - best) / z + floor / n_legal)
    return total


@njit(**OPTS)
def conv_draw(st, hands, scores, seat, n, candidates, bst, bhands, bscores, rng, tiles, no_forbid, count, est,
              ehands, escores, mover, chosen, later, cfg, target, temperature, floor, beta, legal, values, lst,
              lhands, lscores, replies, loglik):
    for w in range(candidates):
        draw_world(st, hands, scores, 0, seat, n, bst, bhands, bscores, w, rng, 0, tiles, 50, no_forbid, no_forbid)
        loglik[w] = conv_log_likelihood(bhands, w, count, est, ehands, escores, mover, chosen, later, cfg, target,
                                        temperature, floor, beta, legal, values, lst, lhands, lscores, replies)


class ConvReader(HandReader):
    def __init__(self, *a, beta=0.0, **kw):
        super().__init__(*a, **kw)
        self.beta = float(beta)

    def read(self, view, cfg, target):
        load_view(view, self.st, self.hands, self.scores)
        events = np.array([(e[0], e[1], e[3]) for e in view.events], np.float64).reshape(-1, 3)
        readable = readable_seats(view.seat, view.num_players, self.partner_only)
        self.count = read_placements(self.st, self.hands, self.scores, view.seat, view.num_players, readable,
                                     events[:, 0].astype(np.int64), events[:, 1].astype(np.int64), events[:, 2],
                                     len(events), np.asarray(view.hand_start_scores, np.float64), self.sizes,
                                     self.last_draw, self.est, self.ehands, self.escores, self.mover, self.chosen,
                                     self.later)
        conv_draw(self.st, self.hands, self.scores, view.seat, view.num_players, self.candidates, self.bst,
                  self.bhands, self.bscores, self.rng, self.tiles, self.no_forbid, self.count, self.est,
                  self.ehands, self.escores, self.mover, self.chosen, self.later, cfg, target, self.temperature,
                  self.floor, self.beta, self.legal, self.values, self.lst, self.lhands, self.lscores,
                  self.replies, self.loglik)
        top = self.loglik.max()
        if np.isfinite(top):
            np.exp(self.loglik - top, out=self.weights)
        else:
            self.weights[:] = 1.0


class FitConv(ChampionAgent):
    def __init__(self, delta=0.0, beta=0.0, rt=2.0, rf=0.05, **kw):
        super().__init__(**kw)
        self.delta, self.beta, self.rt, self.rf = float(delta), float(beta), float(rt), float(rf)
        self._st = np.zeros((1, NUM_FIELDS), np.int8)
        self._hands = np.zeros((1, 8), np.int64)
        self._lst = np.zeros((1, NUM_FIELDS), np.int8)
        self._lhands = np.zeros((1, 8), np.int64)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self._scores = np.zeros((1, config.num_sides), np.float64)
        self._lscores = np.zeros((1, config.num_sides), np.float64)
        if self.reader is not None:
            self.reader = ConvReader(config.num_sides, int(rng.integers(2 ** 62)), temperature=self.rt,
                                     floor=self.rf, partner_only=self.read == "partner", beta=self.beta)

    def act(self, view, legal_actions):
        if len(legal_actions) == 1 or legal_actions[0] >= DRAW:
            return legal_actions[0]
        legal = list(legal_actions)
        values = self.action_values(view, legal)
        pick = best_action(legal, values, greedy_action(view, legal))
        if self.delta > 0:
            load_view(view, self._st, self._hands, self._scores)
            top = max(values)
            near = [(fit_after(self._st, 0, self._hands, a, self._lst, self._lhands, self._lscores), v, a)
                    for a, v in zip(legal, values) if v >= top - self.delta]
            choice = max(near)[2]
            STATS["decisions"] += 1
            STATS["forced"] += choice != pick
            pick = int(choice)
        return pick
