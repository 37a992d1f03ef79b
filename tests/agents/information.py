"""Helpers of the information tests: decision points of seeded games, and an agent's decisions over worlds
that differ only in what its seat cannot see."""

import numpy as np

from allfives_env.agents import make_agent
from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.view import player_view, sample_world


def decision_points(num_players, seed, count):
    """``count`` copies of a seeded random game at decisions with a choice (over hands if needed)."""
    rng = np.random.default_rng(seed)
    game = Game(RulesConfig(num_players=num_players))
    game.start_game(rng)
    found = []
    while len(found) < count and not game.game_over:
        if game.hand_over:
            game.start_next_hand(rng)
            continue
        actions = game.legal_actions()
        if len(actions) > 1:
            found.append(game.clone())
        game.step(actions[int(rng.integers(len(actions)))])
    return found


def decisions_over_worlds(spec, game, resample, agent_seed, worlds=3) -> set:
    """What a fresh ``spec`` agent (seeded ``agent_seed``) decides for the seat to move in ``game`` and in
    ``worlds - 1`` re-deals of the hidden tiles from ``resample`` that keep the seat's view identical."""
    seat = game.to_move
    view = player_view(game, seat)
    decisions = set()
    for k in range(worlds):
        world = game if k == 0 else sample_world(view, resample)
        other_view = player_view(world, seat)
        assert other_view.key() == view.key()
        agent = make_agent(spec)
        agent.reset(seat, game.config, np.random.default_rng(agent_seed))
        decisions.add(agent.act(other_view, other_view.legal_actions))
    return decisions
