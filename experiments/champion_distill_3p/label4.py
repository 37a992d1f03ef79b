"""Scratch: DAgger labels of the 4-player champion at the policy's decisions.

The policy (ppo_3p.pt) plays one seat (or every seat in self-play lineups); at each of its placement
decisions with a choice, the champion (fresh per seat, same seat) values every legal placement.
Saved: inputs, masks, champion values (NaN off-legal), game index, the policy's own choice.
python label.py GAMES SEED OUT.npz [POLICY]
"""
import sys
from multiprocessing import get_context

import numpy as np

from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.agents.registry import make_agent
from allfives_env.arena.deals import deal_hand
from allfives_env.arena.game import agent_rng
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view

POLICY = "policy"
# 4 players: the policy holds seats p and p+2; the opponents' partnership by deal seed
LINEUPS = (POLICY, "search:engine=compiled", "search:engine=compiled", "heuristic", "greedy", "search:engine=compiled")


def record_game(path, config, deal_seed):
    n = config.num_players
    opp = LINEUPS[deal_seed % len(LINEUPS)]
    pseat = (deal_seed // len(LINEUPS)) % 2
    specs = [POLICY if (s - pseat) % 2 == 0 else opp for s in range(n)]
    agents, champs = [], []
    for seat, spec in enumerate(specs):
        a = PPOAgent(path) if spec == POLICY else make_agent(spec)
        a.reset(seat, config, agent_rng(deal_seed, seat))
        agents.append(a)
        c = None
        if spec == POLICY:
            c = ChampionAgent()
            c.reset(seat, config, np.random.default_rng([deal_seed, seat, 99]))
        champs.append(c)
    game = Game(config)
    X, M, V = [], [], []
    hand = 0
    while True:
        deal_hand(game, deal_seed, hand)
        while not game.hand_over:
            seat, legal = game.to_move, game.legal_actions()
            if len(legal) == 1:
                game.step(legal[0])
                continue
            view = player_view(game, seat)
            if champs[seat] is not None and view.legal_actions[0] < DRAW:
                legal = list(view.legal_actions)
                vals = champs[seat].action_values(view, legal)
                m = np.zeros(NUM_ACTIONS, np.int8)
                m[legal] = 1
                v = np.full(NUM_ACTIONS, np.nan, np.float32)
                v[legal] = vals
                X.append(agents[seat].input_vector(view, np.asarray(legal)).astype(np.float32))
                M.append(m)
                V.append(v)
            game.step(int(agents[seat].act(view, view.legal_actions)))
        if game.game_over:
            break
        hand += 1
    return np.array(X, np.float32), np.array(M, np.int8), np.array(V, np.float32)


def _job(args):
    return record_game(*args)


if __name__ == "__main__":
    games, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    path = sys.argv[4] if len(sys.argv) > 4 else "checkpoints/ppo_4p.pt"
    config = RulesConfig(num_players=4)
    PPOAgent(path)
    ChampionAgent()  # preload values before fork
    jobs = [(path, config, seed + g) for g in range(games)]
    with get_context("fork").Pool(2) as pool:
        res = pool.map(_job, jobs, chunksize=8)
    np.savez_compressed(out, inputs=np.concatenate([r[0] for r in res]), masks=np.concatenate([r[1] for r in res]),
                        values=np.concatenate([r[2] for r in res]),
                        game=np.concatenate([np.full(len(r[0]), g) for g, r in enumerate(res)]))
    print("labels", sum(len(r[0]) for r in res))
