"""Scratch: a readable convention between champion partners (4 players).

The champion takes the heuristic agent's choice whenever the search values it within ``delta`` points
of its best; its partner reads it with a sharper model of the heuristic (temperature ``rt``, floor ``rf``).
Only the own side is modelled: the convention is shared by the two partners.
"""
import numpy as np

from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.hand_reading import HandReader
from allfives_env.agents.heuristic import score_placements
from allfives_env.agents.search import best_action
from allfives_env.agents.greedy import greedy_action
from allfives_env.compiled.state import DRAW
from allfives_env.rules.tiles import heaviness

STATS = {"decisions": 0, "agree": 0, "forced": 0}


def heuristic_choice(view, legal, weights):
    scores = score_placements(view, legal, weights)
    return max(legal, key=lambda a: (scores[a], heaviness(a >> 2), -(a & 3)))


class ConventionChampion(ChampionAgent):
    def __init__(self, delta=0.0, rt=2.0, rf=0.05, cands=256, **kw):
        super().__init__(**kw)
        self.delta, self.rt, self.rf, self.cands = float(delta), float(rt), float(rf), int(cands)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        if self.reader is not None:
            self.reader = HandReader(config.num_sides, int(rng.integers(2 ** 62)), candidates=self.cands,
                                     temperature=self.rt, floor=self.rf, partner_only=self.read == "partner")

    def act(self, view, legal_actions):
        if len(legal_actions) == 1 or legal_actions[0] >= DRAW:
            return legal_actions[0]
        legal = list(legal_actions)
        values = self.action_values(view, legal)
        pick = best_action(legal, values, greedy_action(view, legal))
        h = heuristic_choice(view, legal, self._prior)
        STATS["decisions"] += 1
        if h != pick and values[legal.index(h)] >= max(values) - self.delta:
            STATS["forced"] += 1
            pick = h
        STATS["agree"] += h == pick
        return pick
