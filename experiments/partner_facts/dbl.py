"""Scratch: a doubles convention between champion partners (4 players).

``dbl:Dbl:delta=5,eps=0.2`` -- the champion plays a double whenever its best double is valued within ``delta``
points of its best placement (the best such double); it reads its partner as playing by the same rule: a
partner placement that was not a double when the world gives the partner a playable double costs that world
``log(eps)`` (on top of the heuristic reading).
"""
import numpy as np
from numba import njit

import allfives_env.agents.champion as ch
from allfives_env.agents.hand_reading import HandReader
from allfives_env.compiled.state import LEAD_TILE, OPEN
from allfives_env.rules.actions import tile_of
from allfives_env.rules.tiles import TILE_HIGH, TILE_LOW

IS_DOUBLE = np.array([a == b for a, b in zip(TILE_LOW, TILE_HIGH)])
DOUBLE_OF_SUIT = np.array([t for t in range(28) if IS_DOUBLE[t]])  # suit s -> tile [s|s]
DOUBLE_OF_SUIT = np.array([next(t for t in range(28) if TILE_LOW[t] == s and TILE_HIGH[t] == s) for s in range(7)])
DOUBLES_MASK = int(sum(1 << int(t) for t in DOUBLE_OF_SUIT))


@njit(cache=False)
def convention_loglik(bhands, partner, count, est, mover, chosen, later, double_of_suit, doubles_mask, log_eps, out):
    for w in range(bhands.shape[0]):
        total = 0.0
        for k in range(count):
            if mover[k] != partner:
                continue
            hand = bhands[w, partner] | later[k]
            t = chosen[k] >> 2
            if (doubles_mask >> t) & 1:
                continue
            if est[k, LEAD_TILE] < 0:
                playable = hand & doubles_mask
            else:
                playable = 0
                for slot in range(4):
                    v = est[k, OPEN + slot]
                    if v >= 0:
                        playable |= hand & (1 << double_of_suit[v])
            if playable:
                total += log_eps
        out[w] = total


class DblReader(HandReader):
    def read(self, view, cfg, target):
        super().read(view, cfg, target)
        partner = (view.seat + 2) % 4
        extra = np.zeros(self.candidates)
        convention_loglik(self.bhands, partner, self.count, self.est, self.mover, self.chosen, self.later,
                          DOUBLE_OF_SUIT, DOUBLES_MASK, np.log(self.eps), extra)
        ll = self.loglik + extra
        top = ll.max()
        if np.isfinite(top):
            np.exp(ll - top, out=self.weights)


class Dbl(ch.ChampionAgent):
    def __init__(self, delta=5.0, eps=0.2, play=True, candidates=256, **kw):
        super().__init__(**kw)
        self.delta, self.eps, self.play, self.candidates = float(delta), float(eps), bool(play), int(candidates)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        assert self.reader is not None and config.num_players == 4
        self.reader = DblReader(config.num_sides, int(rng.integers(2 ** 62)), candidates=self.candidates,
                                partner_only=True)
        self.reader.eps = self.eps

    def action_values(self, view, legal_actions):
        values = list(super().action_values(view, legal_actions))
        if not self.play:
            return values
        best = max(values)
        doubles = [i for i, a in enumerate(legal_actions) if IS_DOUBLE[tile_of(a)]]
        if doubles:
            i = max(doubles, key=lambda j: values[j])
            if values[i] >= best - self.delta:
                values[i] = best + 1.0
        return values
