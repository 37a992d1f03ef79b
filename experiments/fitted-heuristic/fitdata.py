"""Scratch: record the 4-player champion's choices with the heuristic's terms per legal placement."""
import sys
import pickle
from types import SimpleNamespace
import numpy as np

import allfives_env.arena.game as arena_game
from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.heuristic import WEIGHT_NAMES, score_placements
from allfives_env.compiled.state import DRAW
from allfives_env.rules.config import RulesConfig

ROWS = []


def weights(**kw):
    return SimpleNamespace(**{name: kw.get(name, 0.0) for name in WEIGHT_NAMES})


def terms(view, legal):
    base = score_placements(view, legal, weights())
    cols = [np.array([base[a] for a in legal])]
    for name in WEIGHT_NAMES:
        v = score_placements(view, legal, weights(**{name: 1.0}))
        cols.append(np.array([v[a] for a in legal]) - cols[0])
    return np.stack(cols, 1)


class Recorder(ChampionAgent):
    def act(self, view, legal_actions):
        choice = super().act(view, legal_actions)
        legal = list(legal_actions)
        if len(legal) > 1 and legal[0] < DRAW:
            X = terms(view, legal)
            ROWS.append((X, legal.index(choice), np.array([a >> 2 for a in legal])))
        return choice


if __name__ == "__main__":
    games, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    cfg = RulesConfig(num_players=int(__import__("os").environ.get("PLAYERS", "4")))
    for g in range(games):
        arena_game.play_game(cfg, [Recorder() for _ in range(cfg.num_players)], seed * 1000 + g)
        if g % 10 == 9:
            pickle.dump(ROWS, open(out, "wb"))
    pickle.dump(ROWS, open(out, "wb"))
    print(len(ROWS))
