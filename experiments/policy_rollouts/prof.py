import cProfile, pstats, time
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from prollout import ChampionPolicyRollouts
cfg = RulesConfig(num_players=4)
run_match(cfg, [ChampionPolicyRollouts("replace", 32), "search:engine=compiled"], games=1, seed=700502)
pr = cProfile.Profile(); pr.enable()
m = run_match(cfg, [ChampionPolicyRollouts("replace", 32), "search:engine=compiled"], games=6, seed=700503)
pr.disable()
pstats.Stats(pr).sort_stats("tottime").print_stats(18)
