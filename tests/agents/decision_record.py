"""Plays agents on recorded deals and lists every decision they make.

The record (``data/shipped_decisions.json``) was made before the architecture
change of issue 22; ``test_shipped_decisions.py`` replays its deals and checks
that every agent still makes every decision the same way. Only the reference
engine and the agent protocol are used, so the record does not depend on how
the arena draws its deals.

Regenerate (only when a change of play is intended):
``python tests/agents/decision_record.py --write``; ``--append`` records only the matchups added
since (the 4-player policy's opponent-agnostic default, the champion and its look-ahead were appended so; when
``checkpoints/ppo_2p.pt`` was replaced by the lookahead policy, its games were dropped from the
record and appended again; so were the 4-player policy's when ``checkpoints/ppo_4p.pt`` was replaced by
its fine-tune against the search, and the 3-player policy's when ``checkpoints/ppo_3p.pt`` became the
champion distilled).
"""

import json
import sys
from pathlib import Path

import numpy as np

RECORD_PATH = Path(__file__).with_name("data") / "shipped_decisions.json"
ROOT = Path(__file__).resolve().parents[2]

#: (players, agent spec per seat, number of games): the shipped policies and every scripted baseline
MATCHUPS = [
    (2, ["ppo:checkpoints/ppo_2p.pt", "greedy"], 3),
    (2, ["search", "ppo:checkpoints/ppo_2p.pt"], 2),
    (2, ["heuristic", "search"], 2),
    (3, ["ppo:checkpoints/ppo_3p.pt", "greedy", "heuristic"], 3),
    # the 4-player policy with its greedy-opponent model (an option, off by default)
    (4, ["ppo:checkpoints/ppo_4p.pt,infer=greedy", "greedy", "ppo:checkpoints/ppo_4p.pt,infer=greedy", "greedy"], 3),
    (4, ["search", "heuristic", "search", "heuristic"], 1),
    # added with the opponent-agnostic default and the champion
    (4, ["ppo:checkpoints/ppo_4p.pt", "greedy", "ppo:checkpoints/ppo_4p.pt", "greedy"], 2),
    # the champion before it added the policy's look-ahead (the same play as then; its heuristic prior,
    # the 2-player default until 2026-12-05, is given since)
    (2, ["champion:samples=256,value=none,prior_weight=1", "heuristic"], 1),
    # added with the champion's look-ahead through the shipped policies (2 and 3 players)
    (2, ["champion", "heuristic"], 1),
    (3, ["champion", "greedy", "heuristic"], 1),
]


def _modules():
    from allfives_env.agents import make_agent
    from allfives_env.rules import RulesConfig
    from allfives_env.rules.game import Game
    from allfives_env.rules.view import player_view
    return make_agent, RulesConfig, Game, player_view


def _agents(specs):
    make_agent = _modules()[0]
    return [make_agent(spec.replace("checkpoints/", f"{ROOT}/checkpoints/")) for spec in specs]


def _reset(agents, config, seed):
    for seat, agent in enumerate(agents):
        agent.reset(seat, config, np.random.default_rng([seed, seat]))


def play_and_record(players, specs, seed):
    """Play one game on fresh deals drawn from ``seed``; returns its record."""
    _, RulesConfig, Game, player_view = _modules()
    config = RulesConfig(num_players=players)
    agents = _agents(specs)
    _reset(agents, config, seed)
    game, rng, hands = Game(config), np.random.default_rng(seed), []
    game.start_game(rng)
    while True:
        hand = {"leader": game.leader, "order": _deal_order(game)}
        hand["decisions"] = _play_hand(game, agents, player_view)
        hands.append(hand)
        if game.game_over:
            break
        game.start_next_hand(rng)
    return {"players": players, "specs": specs, "seed": seed, "hands": hands, "scores": list(game.scores)}


def _play_hand(game, agents, player_view):
    """Play the hand in progress to its end; every step's action (the agents choose when there is a choice)."""
    actions = []
    while not game.hand_over:
        legal = game.legal_actions()
        action = legal[0]
        if len(legal) > 1:
            view = player_view(game, game.to_move)
            action = int(agents[game.to_move].act(view, view.legal_actions))
        actions.append(action)
        game.step(action)
    return actions


def _deal_order(game):
    from allfives_env.rules.tiles import mask_to_tiles
    return [t for h in game.hands for t in mask_to_tiles(h)] + list(game.boneyard)


def replay_decisions(record):
    """Replay a record's deals with fresh agents; returns ``(decisions per hand, final scores)``
    as the agents make them now (a differing decision is played as the agent chose it)."""
    _, RulesConfig, Game, player_view = _modules()
    config = RulesConfig(num_players=record["players"])
    agents = _agents(record["specs"])
    _reset(agents, config, record["seed"])
    game, made = Game(config), []
    size, n = config.tiles_per_hand, config.num_players
    for k, hand in enumerate(record["hands"]):
        order = hand["order"]
        if k == 0:
            hands = [order[i * size:(i + 1) * size] for i in range(n)]
            game.start_game(None, hands=hands, boneyard=order[n * size:], leader=hand["leader"])
        else:
            game.start_next_hand(None, deal=(hand["leader"], order))
        made.append(_play_hand(game, agents, player_view))
        if game.game_over:
            break
    return made, list(game.scores)


def write_record(only_new=False):
    """Write the record; ``only_new``: keep the games already recorded and append the matchups added since."""
    records = json.loads(RECORD_PATH.read_text()) if only_new else []
    have = {r["seed"] for r in records}
    for m, (players, specs, games) in enumerate(MATCHUPS):
        for g in range(games):
            if 9000 + 100 * m + g not in have:
                records.append(play_and_record(players, specs, seed=9000 + 100 * m + g))
    RECORD_PATH.parent.mkdir(exist_ok=True)
    RECORD_PATH.write_text(json.dumps(records, separators=(",", ":")) + "\n")
    print(f"wrote {len(records)} games to {RECORD_PATH}")


if __name__ == "__main__":
    if sys.argv[1:] not in (["--write"], ["--append"]):
        sys.exit("usage: python tests/agents/decision_record.py --write | --append (only the matchups not recorded yet)")
    write_record(only_new=sys.argv[1] == "--append")
