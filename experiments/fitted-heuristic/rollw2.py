"""Scratch: the 4-player champion with the refit heuristic everywhere it uses the heuristic (search prior and
rollouts, look-ahead replies, partner reader). Needs NUMBA_CACHE_DIR set to a fresh folder: the reader and the
replies read the weights as compiled constants. The opponents' searches keep the default weights."""
import numpy as np

import allfives_env.agents.search_compiled as sc

DEFAULT = sc.HEURISTIC_WEIGHTS.copy()
FIT = np.array([1.313, 0.621, 2.106, 0.232, 0.557, 4.47])
sc.HEURISTIC_WEIGHTS[:] = FIT  # before any kernel that reads it as a constant is compiled

from rollw import _values  # noqa: E402
from allfives_env.agents.champion import ChampionAgent  # noqa: E402


def _values_default(self, *args, **kw):
    if not hasattr(self, "weights"):
        self.weights = DEFAULT
    return _values(self, *args, **kw)


sc.Searcher.values = _values_default


class FitChampion(ChampionAgent):
    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self._compiled.searcher.weights = FIT
