"""Scratch: how well do the heuristic (softened) and the 4-player policy predict the champion's choices?"""
import sys
import numpy as np

import allfives_env.arena.game as arena_game
from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.heuristic import HeuristicAgent, score_placements
from allfives_env.agents.registry import make_agent
from allfives_env.compiled.state import DRAW
from allfives_env.rules.config import RulesConfig

ROWS = []
HEUR = HeuristicAgent()
POL = make_agent("ppo:checkpoints/ppo_4p.pt")


def log_softmax(x):
    x = np.asarray(x, float)
    m = x.max()
    return x - m - np.log(np.exp(x - m).sum())


class Recorder(ChampionAgent):
    def act(self, view, legal_actions):
        choice = super().act(view, legal_actions)
        legal = list(legal_actions)
        if len(legal) > 1 and legal[0] < DRAW:
            i = legal.index(choice)
            sc = score_placements(view, legal, HEUR)
            h = np.array([min(sc[a], 1e3) for a in legal])
            row = {"n": len(legal)}
            for t in (0.5, 1, 2, 4, 8):
                p = 0.95 * np.exp(log_softmax(h / t)) + 0.05 / len(legal)
                row[f"h{t}"] = np.log(p[i])
            row["h_top"] = float(HEUR.act(view, legal) == choice)
            lg = POL.logits(POL.input_vector(view, np.asarray(legal)), np.asarray(legal))[np.asarray(legal)]
            for t in (0.5, 1, 2):
                p = 0.95 * np.exp(log_softmax(lg / t)) + 0.05 / len(legal)
                row[f"p{t}"] = np.log(p[i])
            row["p_top"] = float(legal[int(np.argmax(lg))] == choice)
            row["unif"] = -np.log(len(legal))
            ROWS.append(row)
        return choice


if __name__ == "__main__":
    games, seed = int(sys.argv[1]), int(sys.argv[2])
    cfg = RulesConfig(num_players=4)
    POL.reset(0, cfg, np.random.default_rng(0))
    for g in range(games):
        agents = [Recorder() for _ in range(4)]
        arena_game.play_game(cfg, agents, seed * 1000 + g)
    print("decisions", len(ROWS), "mean legal", np.mean([r["n"] for r in ROWS]))
    for k in ROWS[0]:
        print(k, round(float(np.mean([r[k] for r in ROWS])), 4))
