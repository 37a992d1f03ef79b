"""Control: ChampionPR(a=0.5, b=0) must play the champion's games exactly."""
import sys, time
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from preader import ChampionPR
games, seed = int(sys.argv[1]), int(sys.argv[2])
cfg = RulesConfig(num_players=4)
t = time.process_time()
m1 = run_match(cfg, ["champion", "search:engine=compiled"], games=games, seed=seed)
t1 = time.process_time() - t
for a, b in [(0.5, 0.0), (0.245, 0.162)]:
    t = time.process_time()
    m2 = run_match(cfg, [ChampionPR(a=a, b=b), "search:engine=compiled"], games=games, seed=seed)
    t2 = time.process_time() - t
    same = [g1.scores == g2.scores for g1, g2 in zip(m1.games, m2.games)]
    print(f"a={a} b={b}: same scores in {sum(same)}/{len(same)} games; cpu {t1:.1f}s vs {t2:.1f}s")
