import sys, time; sys.path.insert(0, "/tmp/exp")
import numpy as np
from prollout import ChampP
from allfives_env.agents.search import ChampionAgent
from allfives_env.rules.config import RulesConfig
from allfives_env.vector import VectorAllFives
from allfives_env.vector.batched import random_legal_actions, make_rng_state
cfg = RulesConfig(num_players=2)
venv = VectorAllFives(64, 2); out = venv.reset(seed=3); rs = make_rng_state(5, 64)
for _ in range(5):
    out = venv.step(random_legal_actions(out.mask, rs))
games = [b for b in range(64) if out.mask[b, :112].sum() >= 2]
for name, agent in [("heur", ChampionAgent(samples=32)), ("policy", ChampP(samples=32))]:
    agent.reset(0, cfg, np.random.default_rng(0))
    s = agent._compiled.searcher
    s.venv_values(venv, games[0])
    t = time.process_time()
    for b in games:
        s.venv_values(venv, b)
    dt = time.process_time() - t
    print(name, len(games), "positions", round(dt / len(games) * 1000, 2), "ms per decision at 32 worlds")
