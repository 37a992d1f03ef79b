import sys, time
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from prollout import ChampionPolicyRollouts
cfg = RulesConfig(num_players=4)
run_match(cfg, [ChampionPolicyRollouts("mix", 16), "search:engine=compiled"], games=1, seed=700504)
m = run_match(cfg, [ChampionPolicyRollouts("mix", 16), "search:engine=compiled"], games=int(sys.argv[1]), seed=700505)
cpu = sum(g.act_seconds[g.side_agent.index(0)] for g in m.games) / len(m.games)
print(f"{cpu:.3f} s act/game", [g.scores for g in m.games])
