"""Scratch: the champion with other heuristic weights in its search (rollouts and prior).

``rollw:WChampion:w=fit`` (named weight sets below); the look-ahead's heuristic replies and the
hand reader keep the default weights (compiled constants)."""
import numpy as np

import allfives_env.agents.search_compiled as sc
from allfives_env.agents.champion import ChampionAgent

SETS = {
    "default": sc.HEURISTIC_WEIGHTS.copy(),
    # reply, control, stuck, shed, late_shed, double: fitted to the 4-player champion's choices (T 2.285)
    "fit": np.array([1.313, 0.621, 2.106, 0.232, 0.557, 4.47]),
    # the same fit to the 3-player champion's choices (deal seed 10239, 4,484 decisions; T 3.40)
    "fit3": np.array([1.129, 0.649, 3.62, 0.233, 0.187, 5.618]),
}


def _values(self, st, hands, scores, b, cfg, fcfg, forbid=None, bank=None):
    bst, bhands, bscores, rows = self.no_bank if bank is None else bank
    n = sc.search_values(st, hands, scores, b, cfg, fcfg, self.samples, self.win_value, self.prior_weight,
                         getattr(self, "weights", sc.HEURISTIC_WEIGHTS), self.attempts, self.rng, 0, self.wst,
                         self.whands, self.wscores, self.wgains, self.legal, self.out, self.prior, self.tiles,
                         self.replies, self.before, self.no_forbid if forbid is None else forbid, self.no_forbid,
                         self.rollout, self.rlegal, self.rvalues, self.rst, self.rhands, self.rscores, self.rreplies,
                         bst, bhands, bscores, rows)
    return self.legal[:n].copy(), self.out[:n].copy()


sc.Searcher.values = _values


class WChampion(ChampionAgent):
    def __init__(self, w="fit", **kw):
        super().__init__(**kw)
        self.w = SETS[w] if w in SETS else np.array([float(x) for x in w.split("/")])

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self._compiled.searcher.weights = self.w
