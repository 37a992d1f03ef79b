"""How often does the champion play a double when it holds a playable one (4 players, vs a search partnership)?"""
import sys

import numpy as np

import allfives_env.arena.game as g
from allfives_env.agents.registry import make_agent
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.actions import tile_of, DRAW
from allfives_env.rules.tiles import TILE_LOW, TILE_HIGH

spec = sys.argv[1] if len(sys.argv) > 1 else "champion"
games = int(sys.argv[2]) if len(sys.argv) > 2 else 20
cfg = RulesConfig(num_players=4)
stats = {"lead": [0, 0], "follow": [0, 0]}
for gi in range(games):
    ags = [make_agent(spec), make_agent("search:engine=compiled"), make_agent(spec), make_agent("search:engine=compiled")]
    for s, a in enumerate(ags):
        a.reset(s, cfg, np.random.default_rng(1000 * gi + s))
    rng = np.random.default_rng(700000 + gi)
    game = Game(cfg)
    game.start_game(rng)
    while not game.game_over:
        if game.hand_over:
            game.start_next_hand(rng)
            continue
        seat = game.to_move
        legal = game.legal_actions()
        act, _ = g.choose_action(game, ags[seat])
        if seat % 2 == 0 and len(legal) > 1 and legal[0] < DRAW:
            dbl = [a for a in legal if TILE_LOW[tile_of(a)] == TILE_HIGH[tile_of(a)]]
            if dbl:
                kind = "lead" if len(game.events) == 0 or all(e[1] >= DRAW for e in game.events) and False else "follow"
                lead = not any(e[1] < DRAW for e in game.events)
                kind = "lead" if lead else "follow"
                stats[kind][0] += 1
                stats[kind][1] += act in dbl
        game.step(act)
print(spec, {k: (n, played / max(n, 1)) for k, (n, played) in stats.items()})
