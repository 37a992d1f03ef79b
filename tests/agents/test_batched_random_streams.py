"""The batched ``random`` agent draws from one stream per game that moves on each time that game asks:
asked again in the same position it does not repeat one fixed choice, and only the games that asked
advance their streams (what ``state_dict`` hands a trainer's exact resume)."""

import numpy as np

from allfives_env.agents.batched import make_batched_agent
from allfives_env.vector import VectorAllFives


def test_a_games_stream_advances_only_when_that_game_asks():
    venv = VectorAllFives(4, num_players=2)
    out = venv.reset(seed=0)
    agent = make_batched_agent("random", venv, seed=9)
    start = agent.state_dict()["streams"]
    agent.actions(out, np.array([1, 3]), np.empty(2, np.int64))
    after = agent.state_dict()["streams"]
    assert np.array_equal(after[[0, 2]], start[[0, 2]])
    assert not np.array_equal(after[1], start[1]) and not np.array_equal(after[3], start[3])


def test_asked_again_in_the_same_position_it_draws_afresh():
    venv = VectorAllFives(4, num_players=2)
    out = venv.reset(seed=0)
    agent = make_batched_agent("random", venv, seed=9)
    games = np.arange(4)
    assert all(out.mask[g].sum() > 1 for g in games)  # a lead: several legal tiles in every game
    picks = np.array([agent.actions(out, games, np.empty(4, np.int64)).copy() for _ in range(30)])
    assert all(out.mask[g, a] for row in picks for g, a in enumerate(row))
    for g in games:
        assert len(set(picks[:, g])) > 1, f"game {g} repeats one choice"
