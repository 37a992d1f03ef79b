"""Record the 4-player champion's placement choices with two models' scores of every legal placement:
the heuristic's values (points) and ppo_4p.pt's logits. Scratch, not product."""
import sys, pickle
import numpy as np
from allfives_env.rules import RulesConfig
from allfives_env.agents import make_agent
from allfives_env.agents.base import BaseAgent
from allfives_env.agents.heuristic import HeuristicAgent, score_placements
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.arena import run_match

ROWS = []
DRAW = 112


class Recorder(BaseAgent):
    def __init__(self):
        super().__init__()
        self.inner = make_agent("champion")
        self.policy = PPOAgent("/work/main/checkpoints/ppo_4p.pt")
        self.heur = HeuristicAgent()
        self.game = 0

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self.inner.reset(seat, config, rng)
        self.policy.reset(seat, config, rng)
        self.heur.reset(seat, config, rng)
        self.game += 1

    def act(self, view, legal_actions):
        a = self.inner.act(view, legal_actions)
        if len(legal_actions) >= 2 and legal_actions[0] < DRAW:
            legal = np.asarray(legal_actions)
            h = score_placements(view, legal_actions, self.heur)
            lg = self.policy.logits(self.policy.input_vector(view, legal), legal)[legal]
            ROWS.append(dict(seat=view.seat, game=(id(self), self.game), hand_no=len(view.events) if hasattr(view, 'events') else -1,
                             legal=legal, h=np.array([h[x] for x in legal]), logit=np.asarray(lg, float),
                             chosen=int(np.flatnonzero(legal == a)[0])))
        return a


if __name__ == "__main__":
    games, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    res = run_match(RulesConfig(num_players=4), [Recorder(), "search:engine=compiled"], games=games, seed=seed)
    print(res.win_rates if hasattr(res, "win_rates") else res)
    pickle.dump(ROWS, open(out, "wb"))
    print(len(ROWS), "decisions")
