"""Record 4p games (search-alone champion side vs compiled search) with every seat's hand, for a
perfect-information leaf value. Usage: python record.py SEED GAMES OUT.npz"""
import sys, time
from multiprocessing import get_context
import numpy as np
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.agents.registry import make_agent
from allfives_env.arena.deals import deal_hand
from allfives_env.arena.game import agent_rng, choose_action
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view
from training.value_fit import seat_specs, discounted_returns, _margin, _outcome, RECORDED_SIDE

VALUE = "checkpoints/champion_value_4p.pt"


def hand_bits(hands, seat, n):
    out = np.zeros((n - 1) * 28, np.uint8)
    for r in range(1, n):
        h = hands[(seat + r) % n]
        for t in range(28):
            if (h >> t) & 1:
                out[(r - 1) * 28 + t] = 1
    return out


def record_game(encoder, config, deal_seed):
    specs = seat_specs(config, deal_seed)
    agents = [make_agent(s) for s in specs]
    for seat, agent in enumerate(agents):
        agent.reset(seat, config, agent_rng(deal_seed, seat))
    n = config.num_players
    encoder.reset(0, config, None)
    game = Game(config)
    dec = [[] for _ in range(n)]
    hand = 0
    while True:
        deal_hand(game, deal_seed, hand)
        while not game.hand_over:
            seat, legal = game.to_move, game.legal_actions()
            if legal[0] < DRAW:
                x = encoder.input_vector(player_view(game, seat), legal).astype(np.float32)
                dec[seat].append((x, hand_bits(game.hands, seat, n), _margin(game, game.seat_side[seat])))
            action, _ = choose_action(game, agents[seat])
            game.step(action)
        if game.game_over:
            break
        hand += 1
    xs, hs, fl, rs = [], [], [], []
    for seat, rows in enumerate(dec):
        side = game.seat_side[seat]
        rs.append(discounted_returns([m for _, _, m in rows], _margin(game, side), _outcome(game, side)))
        xs += [r[0] for r in rows]
        hs += [r[1] for r in rows]
        fl += [1 if specs[seat] == RECORDED_SIDE else 0] * len(rows)
    return (np.array(xs, np.float32), np.array(hs, np.uint8), np.array(fl, np.uint8),
            np.concatenate(rs).astype(np.float32))


def _job(args):
    config, seed = args
    return record_game(PPOAgent(VALUE), config, seed)


if __name__ == "__main__":
    seed, games, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    PPOAgent(VALUE)
    config = RulesConfig.from_options(num_players=4)
    t = time.time()
    with get_context("fork").Pool(2) as pool:
        res = pool.map(_job, [(config, seed + g) for g in range(games)], chunksize=8)
    np.savez_compressed(out, x=np.concatenate([r[0] for r in res]), h=np.concatenate([r[1] for r in res]),
                        flag=np.concatenate([r[2] for r in res]), ret=np.concatenate([r[3] for r in res]),
                        game=np.concatenate([np.full(len(r[3]), seed + g) for g, r in enumerate(res)]))
    print(f"{games} games, {sum(len(r[3]) for r in res)} rows, {time.time()-t:.0f} s")
