"""Scratch diagnostic: partner-hand log-loss under the convention (delta) and reading variants."""
import sys
import numpy as np

import belief
from belief import TRUE, logloss
import allfives_env.arena.game as arena_game
from allfives_env.agents.hand_reading import placement_log_likelihood
from allfives_env.compiled.state import DRAW, PASS
from allfives_env.agents.search_compiled import F_TARGET
from allfives_env.rules.config import RulesConfig
import convention
from convention import ConventionChampion

VARIANTS = {"t2f05": (2.0, 0.05), "t1f05": (1.0, 0.05), "t05f1": (0.5, 0.1), "t05f2": (0.5, 0.2),
            "t025f2": (0.25, 0.2), "t025f1": (0.25, 0.1)}
STATS = []


class Diag(ConventionChampion):
    def action_values(self, view, legal_actions):
        r = self.reader
        search = self._compiled
        r.read(view, search.cfg, search.fcfg[F_TARGET])
        seat = view.seat
        partner = (seat + 2) % 4
        if r.count and any(r.mover[k] == partner for k in range(r.count)):
            truth = TRUE[id(view)][partner]
            bh = r.bhands[:r.candidates]
            unknown = 0
            for w in range(r.candidates):
                for s in range(4):
                    if s != seat:
                        unknown |= int(bh[w, s])
            row = {"off": logloss(np.ones(r.candidates), bh, partner, unknown, truth), "n": r.count}
            for name, (temp, floor) in VARIANTS.items():
                ll = np.array([placement_log_likelihood(r.bhands, w, r.count, r.est, r.ehands, r.escores, r.mover,
                                                        r.chosen, r.later, search.cfg, search.fcfg[F_TARGET], temp,
                                                        floor, r.legal, r.values, r.lst, r.lhands, r.lscores,
                                                        r.replies) for w in range(r.candidates)])
                wts = np.exp(ll - ll.max()) if np.isfinite(ll.max()) else np.ones(r.candidates)
                row[name] = logloss(wts, bh, partner, unknown, truth)
            STATS.append(row)
        values = search.action_values(view, list(legal_actions), r.bank(self._samples))
        placements, leaf = self.leaf_values.values(view, r)
        by_action = dict(zip(placements.tolist(), leaf.tolist()))
        return [v + self.value_weight * by_action[a] for v, a in zip(values, legal_actions)]


if __name__ == "__main__":
    games, seed, delta = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    cfg = RulesConfig(num_players=4)
    for g in range(games):
        agents = [Diag(delta=delta, read="partner") for _ in range(4)]
        arena_game.play_game(cfg, agents, seed * 1000 + g)
    s = convention.STATS
    print("delta", delta, "decisions", s["decisions"], "agree %.3f" % (s["agree"] / s["decisions"]),
          "forced %.3f" % (s["forced"] / s["decisions"]), "rows", len(STATS))
    for k in ["off"] + list(VARIANTS):
        print(k, round(float(np.mean([r[k] for r in STATS])), 4))
