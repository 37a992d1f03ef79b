"""Self-play of 4 FitConv agents: partner-hand log-loss of the read candidates, unweighted vs variants."""
import sys
import numpy as np

import pbelief  # patches arena_game.player_view to record the true hands
from pbelief import TRUE, logloss
import allfives_env.arena.game as arena_game
from allfives_env.agents.search_compiled import F_TARGET
from allfives_env.rules.config import RulesConfig
import fitconv
from fitconv import FitConv, conv_log_likelihood

VARIANTS = {"h_t2": (2.0, 0.05, 0.0), "b0.5": (2.0, 0.05, 0.5), "b1": (2.0, 0.05, 1.0), "b2": (2.0, 0.05, 2.0),
            "b1f1": (2.0, 0.1, 1.0), "b2f1": (2.0, 0.1, 2.0)}
ROWS = []


class Diag(FitConv):
    def action_values(self, view, legal_actions):
        r = self.reader
        search = self._compiled
        r.read(view, search.cfg, search.fcfg[F_TARGET])
        seat, partner = view.seat, (view.seat + 2) % 4
        if r.count and id(view) in TRUE:
            truth = TRUE[id(view)][partner]
            bh = r.bhands[:r.candidates]
            unknown = 0
            for w in range(r.candidates):
                for s in range(4):
                    if s != seat:
                        unknown |= int(bh[w, s])
            row = {"off": logloss(np.ones(r.candidates), bh, partner, unknown, truth)}
            for name, (temp, floor, beta) in VARIANTS.items():
                ll = np.array([conv_log_likelihood(r.bhands, w, r.count, r.est, r.ehands, r.escores, r.mover,
                                                   r.chosen, r.later, search.cfg, search.fcfg[F_TARGET], temp, floor,
                                                   beta, r.legal, r.values, r.lst, r.lhands, r.lscores, r.replies)
                               for w in range(r.candidates)])
                wts = np.exp(ll - ll.max()) if np.isfinite(ll.max()) else np.ones(r.candidates)
                row[name] = logloss(wts, bh, partner, unknown, truth)
            ROWS.append(row)
        values = search.action_values(view, list(legal_actions), r.bank(self._samples))
        placements, leaf = self.leaf_values.values(view, r)
        by_action = dict(zip(placements.tolist(), leaf.tolist()))
        return [v + self.value_weight * by_action[a] for v, a in zip(values, legal_actions)]


if __name__ == "__main__":
    games, seed, delta = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
    cfg = RulesConfig(num_players=4)
    for g in range(games):
        agents = [Diag(delta=delta, beta=1.0, read="partner") for _ in range(4)]
        arena_game.play_game(cfg, agents, seed * 1000 + g)
    s = fitconv.STATS
    print("delta", delta, "decisions", s["decisions"], "forced %.3f" % (s["forced"] / max(1, s["decisions"])),
          "rows", len(ROWS))
    for k in ["off"] + list(VARIANTS):
        print(k, round(float(np.mean([r[k] for r in ROWS])), 4))
