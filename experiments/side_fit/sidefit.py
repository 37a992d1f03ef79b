"""Scratch: the 4-player champion whose model of its own side is the heuristic refit to the champion's choices.

``sidefit:SideFit:reader=1,side=0``: reader=1 reads the partner with the refit weights (temperature 2.285);
side=1 also plays the own side's seats in the rollouts (and the prior) with them; opponents keep the default.
"""
import numpy as np
from numba import njit

import allfives_env.agents.champion as ch
import allfives_env.agents.hand_reading as hr
import allfives_env.agents.search_compiled as sc
from allfives_env.compiled.state import OPTS, HAND_OVER, TO_MOVE, C_N, C_SIDES, F_TARGET
from allfives_env.compiled.rules import apply_action, side_of, forced_action

FIT = np.array([1.313, 0.621, 2.106, 0.232, 0.557, 4.47])
FIT_T = 2.285


@njit(**OPTS)
def fit_loglik(whands, w, count, est, ehands, escores, mover, chosen, later, cfg, target, temperature, floor, legal,
               values, lst, lhands, lscores, replies, weights):
    total = 0.0
    for k in range(count):
        s = mover[k]
        ehands[k, s] = whands[w, s] | later[k]
        n_legal = sc.legal_placements(est, k, ehands, legal)
        if n_legal <= 1:
            continue
        sc.heuristic_values(est, k, ehands, escores, cfg, target, legal, n_legal, weights, lst, lhands, lscores, 0,
                            replies, values)
        best, pick = -np.inf, -1
        for j in range(n_legal):
            values[j] = min(values[j], 1e3) / temperature
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
def fit_draw(st, hands, scores, seat, n, candidates, bst, bhands, bscores, rng, tiles, no_forbid, count, est,
             ehands, escores, mover, chosen, later, cfg, target, temperature, floor, legal, values, lst,
             lhands, lscores, replies, loglik, weights):
    for w in range(candidates):
        sc.draw_world(st, hands, scores, 0, seat, n, bst, bhands, bscores, w, rng, 0, tiles, 50, no_forbid, no_forbid)
        loglik[w] = fit_loglik(bhands, w, count, est, ehands, escores, mover, chosen, later, cfg, target,
                               temperature, floor, legal, values, lst, lhands, lscores, replies, weights)


class FitReader(hr.HandReader):
    def read(self, view, cfg, target):
        sc.load_view(view, self.st, self.hands, self.scores)
        events = np.array([(e[0], e[1], e[3]) for e in view.events], np.float64).reshape(-1, 3)
        readable = hr.readable_seats(view.seat, view.num_players, self.partner_only)
        self.count = hr.read_placements(self.st, self.hands, self.scores, view.seat, view.num_players, readable,
                                        events[:, 0].astype(np.int64), events[:, 1].astype(np.int64), events[:, 2],
                                        len(events), np.asarray(view.hand_start_scores, np.float64), self.sizes,
                                        self.last_draw, self.est, self.ehands, self.escores, self.mover, self.chosen,
                                        self.later)
        fit_draw(self.st, self.hands, self.scores, view.seat, view.num_players, self.candidates, self.bst,
                 self.bhands, self.bscores, self.rng, self.tiles, self.no_forbid, self.count, self.est,
                 self.ehands, self.escores, self.mover, self.chosen, self.later, cfg, target, FIT_T,
                 self.floor, self.legal, self.values, self.lst, self.lhands, self.lscores, self.replies,
                 self.loglik, FIT)
        top = self.loglik.max()
        if np.isfinite(top):
            np.exp(self.loglik - top, out=self.weights)
        else:
            self.weights[:] = 1.0


@njit(**OPTS)
def side_rollout(st, b, hands, scores, gains, cfg, target, side, before, win_value, w2, legal, values,
                 lst, lhands, lscores, replies):
    while not st[b, HAND_OVER]:
        action = sc.heuristic_move(st, b, hands, scores, cfg, target, w2[st[b, TO_MOVE]], legal, values, lst,
                                   lhands, lscores, replies)
        apply_action(st, b, hands, scores, gains, cfg, target, action)
    return sc.outcome_value(st, b, scores, cfg[C_SIDES], side, before, win_value)


@njit(**OPTS)
def side_values(st, hands, scores, b, cfg, fcfg, win_value, prior_weight, w2, rng, wst, whands, wscores, wgains,
                legal, values, prior, replies, before, rlegal, rvalues, rst, rhands, rscores, rreplies, bst, bhands,
                bscores, bank_rows):
    n_legal = sc.legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    target = fcfg[F_TARGET]
    seat = st[b, TO_MOVE]
    side = side_of(seat, cfg[C_N])
    for k in range(n_legal):
        values[k] = 0.0
    for s in range(scores.shape[1]):
        before[s] = scores[b, s]
    worlds = bank_rows.shape[0]
    for i in range(worlds):
        sc.world_from_bank(bst, bhands, bscores, bank_rows[i], wst, whands, wscores, 0, rng, 0)
        for k in range(n_legal):
            sc.copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            values[k] += side_rollout(wst, 1, whands, wscores, wgains, cfg, target, side, before, win_value, w2,
                                      rlegal, rvalues, rst, rhands, rscores, rreplies)
    for k in range(n_legal):
        values[k] /= worlds
    if prior_weight != 0.0:
        sc.heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, w2[seat], wst, whands, wscores, 2,
                            replies, prior)
        for k in range(n_legal):
            values[k] += prior_weight * min(prior[k], 1e3)
    return n_legal


def _side_values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
    bst, bhands, bscores, rows = bank
    n = side_values(st, hands, scores, b, cfg, fcfg, self.win_value, self.prior_weight, self.w2, self.rng,
                    self.wst, self.whands, self.wscores, self.wgains, self.legal, self.out, self.prior,
                    self.replies, self.before, self.rlegal, self.rvalues, self.rst, self.rhands, self.rscores,
                    self.rreplies, bst, bhands, bscores, rows)
    return self.legal[:n].copy(), self.out[:n].copy()


class SideFit(ch.ChampionAgent):
    def __init__(self, reader=1, side=0, dflt=0, **kw):
        super().__init__(**kw)
        self.fit_reader, self.fit_side, self.dflt = int(reader), int(side), int(dflt)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        assert config.num_players == 4 and self.reader is not None and self.reader.partner_only
        if self.fit_reader:
            old = self.reader
            new = FitReader(config.num_sides, 0, partner_only=True)
            new.rng = old.rng
            self.reader = new
        if self.fit_side:
            searcher = self._compiled.searcher
            w2 = np.tile(sc.HEURISTIC_WEIGHTS, (4, 1))
            if not self.dflt:
                w2[seat] = FIT
                w2[(seat + 2) % 4] = FIT
            searcher.w2 = w2
            searcher.values = _side_values.__get__(searcher)


@njit(**OPTS)
def mixed_values(st, hands, scores, b, cfg, fcfg, win_value, prior_weight, w2, rng, wst, whands, wscores, wgains,
                 legal, values, prior, replies, before, rlegal, rvalues, rst, rhands, rscores, rreplies, bst, bhands,
                 bscores, bank_rows, greedy_every):
    """side_values, but every ``greedy_every``-th world is played out with greedy for every seat."""
    n_legal = sc.legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    target = fcfg[F_TARGET]
    seat = st[b, TO_MOVE]
    side = side_of(seat, cfg[C_N])
    for k in range(n_legal):
        values[k] = 0.0
    for s in range(scores.shape[1]):
        before[s] = scores[b, s]
    worlds = bank_rows.shape[0]
    for i in range(worlds):
        sc.world_from_bank(bst, bhands, bscores, bank_rows[i], wst, whands, wscores, 0, rng, 0)
        for k in range(n_legal):
            sc.copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            if i % greedy_every == greedy_every - 1:
                values[k] += sc.rollout_value(wst, 1, whands, wscores, wgains, cfg, target, side, before, win_value)
            else:
                values[k] += side_rollout(wst, 1, whands, wscores, wgains, cfg, target, side, before, win_value, w2,
                                          rlegal, rvalues, rst, rhands, rscores, rreplies)
    for k in range(n_legal):
        values[k] /= worlds
    if prior_weight != 0.0:
        sc.heuristic_values(st, b, hands, scores, cfg, target, legal, n_legal, w2[seat], wst, whands, wscores, 2,
                            replies, prior)
        for k in range(n_legal):
            values[k] += prior_weight * min(prior[k], 1e3)
    return n_legal


def _mixed_values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
    bst, bhands, bscores, rows = bank
    n = mixed_values(st, hands, scores, b, cfg, fcfg, self.win_value, self.prior_weight, self.w2, self.rng,
                     self.wst, self.whands, self.wscores, self.wgains, self.legal, self.out, self.prior,
                     self.replies, self.before, self.rlegal, self.rvalues, self.rst, self.rhands, self.rscores,
                     self.rreplies, bst, bhands, bscores, rows, self.greedy_every)
    return self.legal[:n].copy(), self.out[:n].copy()


class Mixed(ch.ChampionAgent):
    """The champion with every ``every``-th rollout world played by greedy for every seat."""

    def __init__(self, every=2, **kw):
        super().__init__(**kw)
        self.every = int(every)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        searcher = self._compiled.searcher
        searcher.w2 = np.tile(sc.HEURISTIC_WEIGHTS, (4, 1))
        searcher.greedy_every = self.every
        searcher.values = _mixed_values.__get__(searcher)
