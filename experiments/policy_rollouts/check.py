"""Control + cost: the prior recomputed must equal the search's (mix with prior only); CPU per game."""
import sys, time
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from prollout import ChampionPolicyRollouts
games, seed = int(sys.argv[1]), int(sys.argv[2])
cfg = RulesConfig(num_players=4)
for name, agent in [("champion", "champion"), ("replace32", ChampionPolicyRollouts("replace", 32)),
                    ("mix32", ChampionPolicyRollouts("mix", 32))]:
    t = time.process_time()
    m = run_match(cfg, [agent, "search:engine=compiled"], games=games, seed=seed)
    cpu = sum(g.act_seconds[g.side_agent.index(0)] for g in m.games) / len(m.games)
    print(f"{name}: {time.process_time()-t:.1f}s cpu total, {cpu:.2f} s act/game, scores {[g.scores for g in m.games][:2]}", flush=True)
