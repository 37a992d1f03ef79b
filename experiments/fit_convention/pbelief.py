"""Scratch diagnostic: how much of the partner's hand does the reading recover?

Per champion decision (4 players, read=partner) with at least one partner placement this hand:
binary log-loss over the unknown tiles of P(partner holds tile), weighted candidates vs the same
candidates unweighted (read=off); plus variants re-weighted on the same candidates.
"""
import sys
import numpy as np

import allfives_env.arena.game as arena_game
from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.hand_reading import placement_log_likelihood
from allfives_env.compiled.state import DRAW, PASS, F_TARGET as _FT
from allfives_env.rules.config import RulesConfig

TRUE = {}
_view = arena_game.player_view


def _player_view(game, seat):
    view = _view(game, seat)
    TRUE.clear()
    TRUE[id(view)] = [int(h) for h in game.hands]
    return view


arena_game.player_view = _player_view
STATS = []
VARIANTS = {"t2f05": (2.0, 0.05), "t1f05": (1.0, 0.05)}


def logloss(weights, bh, partner, unknown, truth):
    w = weights / weights.sum()
    loss = 0.0
    for t in range(28):
        if not (unknown >> t) & 1:
            continue
        p = float(np.sum(w * ((bh[:, partner] >> t) & 1)))
        p = min(max(p, 1e-4), 1 - 1e-4)
        y = (truth >> t) & 1
        loss -= np.log(p) if y else np.log(1 - p)
    return loss


import os
from allfives_env.agents.hand_reading import HandReader
CANDS = int(os.environ.get("CANDS", "256"))


class BeliefChampion(ChampionAgent):
    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        if self.reader is not None:
            self.reader = HandReader(config.num_sides, int(rng.integers(2 ** 62)), candidates=CANDS,
                                     partner_only=True)

    def action_values(self, view, legal_actions):
        r = self.reader
        search = self._compiled
        r.read(view, search.cfg, search.fcfg[_FT])
        n, seat = view.num_players, view.seat
        partner = (seat + 2) % 4
        # partner placements this hand, not forced
        placed = 0
        after_draw = False
        prev = {}
        for e in view.events:
            s, a = e[0], e[1]
            if s != partner:
                continue
            if a == DRAW:
                after_draw = True
                continue
            if a == PASS:
                after_draw = False
                continue
            if not after_draw:
                placed += 1
            after_draw = False
        if placed:
            truth = TRUE[id(view)][partner]
            bh = r.bhands[:r.candidates]
            unknown = 0
            for w in range(r.candidates):
                for s in range(n):
                    if s != seat:
                        unknown |= int(bh[w, s])
            row = {"placed": placed, "read": r.count}
            row["off"] = logloss(np.ones(r.candidates), bh, partner, unknown, truth)
            for name, (temp, floor) in VARIANTS.items():
                ll = np.array([placement_log_likelihood(r.bhands, w, r.count, r.est, r.ehands, r.escores, r.mover,
                                                        r.chosen, r.later, search.cfg, search.fcfg[_FT], temp,
                                                        floor, r.legal, r.values, r.lst, r.lhands, r.lscores,
                                                        r.replies) for w in range(r.candidates)])
                wts = np.exp(ll - ll.max()) if np.isfinite(ll.max()) else np.ones(r.candidates)
                row[name] = logloss(wts, bh, partner, unknown, truth)
            STATS.append(row)
        values = search.action_values(view, list(legal_actions), r.bank(self._samples))
        placements, leaf = self.leaf_values.values(view, r)
        by_action = dict(zip(placements.tolist(), leaf.tolist()))
        return [v + self.value_weight * by_action[a] for v, a in zip(values, legal_actions)]


def F_TARGET():
    from allfives_env.agents.search_compiled import F_TARGET as ft
    return ft


if __name__ == "__main__":
    games, seed = int(sys.argv[1]), int(sys.argv[2])
    cfg = RulesConfig(num_players=4)
    for g in range(games):
        agents = [BeliefChampion(read="partner") for _ in range(4)]
        arena_game.play_game(cfg, agents, seed * 1000 + g)
    keys = ["off"] + list(VARIANTS)
    print("decisions", len(STATS), "placed", np.mean([r["placed"] for r in STATS]),
          "read", np.mean([r["read"] for r in STATS]))
    for k in keys:
        print(k, round(float(np.mean([r[k] for r in STATS])), 4))
