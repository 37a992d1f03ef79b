"""Evaluation during training: the live network in memory, on the batched env, on duplicate deals."""

import os

import numpy as np
import pytest

from allfives_env.agents.ppo.agent import PPOAgent, load_policy
from allfives_env.arena import run_match
from allfives_env.rules import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view
from training.evaluate import Evaluator


@pytest.fixture(scope="module")
def shipped_2p():
    net, rules, features = load_policy("checkpoints/ppo_2p.pt")
    return net, rules, features


def test_an_in_memory_agent_plays_as_its_file(shipped_2p):
    net, rules, features = shipped_2p
    from_file, in_memory = PPOAgent("checkpoints/ppo_2p.pt"), PPOAgent.from_network(net, rules, features)
    rng = np.random.default_rng(4)
    for agent in (from_file, in_memory):
        agent.reset(0, rules, rng)
    game, checked = Game(rules), 0
    game.start_game(rng)
    while not game.game_over and checked < 200:
        legal = game.legal_actions()
        view = player_view(game, game.to_move)
        if len(legal) > 1:
            assert from_file.act(view, view.legal_actions) == in_memory.act(view, view.legal_actions)
            checked += 1
        game.step(legal[int(rng.integers(len(legal)))])
        if game.hand_over and not game.game_over:
            game.start_next_hand(rng)
    assert checked > 50


def test_batched_evaluation_agrees_with_the_arena(shipped_2p, tmp_path, monkeypatch):
    """The compiled match and an arena match of the same policy against greedy measure the same
    strength (different deals: within the intervals' noise), the first writing no file."""
    net, rules, features = shipped_2p
    monkeypatch.chdir(tmp_path)
    batched = Evaluator(rules, features, ["greedy", "random"], games=400, seed=5).evaluate(net)
    assert os.listdir(tmp_path) == []
    arena = run_match(rules, [PPOAgent.from_network(net, rules, features), "greedy"], 400, seed=5).to_dict()
    arena_rate = arena["agents"][0]["win_rate"]
    assert batched["greedy"]["games"] == 400
    assert abs(batched["greedy"]["win_rate"] - arena_rate) < 0.1, (batched["greedy"], arena_rate)
    assert batched["greedy"]["ci_low"] < batched["greedy"]["win_rate"] < batched["greedy"]["ci_high"]
    assert batched["random"]["win_rate"] > 0.9 and batched["random"]["margin"] > 50
    assert 0.6 < batched["greedy"]["win_rate"] < 0.95 and batched["greedy"]["margin"] > 0


def test_evaluation_is_reproducible_and_uses_every_rotation(shipped_2p):
    net, rules, features = shipped_2p
    evaluator = Evaluator(rules, features, ["heuristic"], games=60, seed=9)
    first, again = evaluator.evaluate(net), evaluator.evaluate(net)
    assert {k: v for k, v in first["heuristic"].items() if k != "seconds"} == \
        {k: v for k, v in again["heuristic"].items() if k != "seconds"}
    assert first["heuristic"]["games"] == 60


@pytest.mark.parametrize("num_players", [3, 4])
def test_an_untrained_network_loses_to_greedy(num_players):
    """A random network's win rate is its fair share or less against greedy: the side bookkeeping
    (rotation, partners, R25 outcomes) gives the policy no wins it did not make."""
    from allfives_env.agents.ppo.network import PolicyNet
    from allfives_env.env.encoders import default_layout

    rules = RulesConfig(num_players=num_players)
    net = PolicyNet(default_layout(num_players).size, [16])
    res = Evaluator(rules, "none", ["greedy"], games=120, seed=2).evaluate(net)["greedy"]
    assert res["win_rate"] < 1.0 / rules.num_sides and res["margin"] < 0


def test_other_specs_play_through_the_arena_in_memory(shipped_2p):
    net, rules, features = shipped_2p
    res = Evaluator(rules, features, ["search:samples=2"], games=4, seed=1).evaluate(net)["search:samples=2"]
    assert res["games"] == 4 and 0.0 <= res["win_rate"] <= 1.0
