"""Bad input gets an error naming the problem and what is allowed; nothing changes."""

import copy

import numpy as np
import pytest

import allfives_env
from allfives_env import IllegalActionError


def snapshot(env):
    game = env.unwrapped.game
    return copy.deepcopy({
        "hands": game.hands, "scores": game.scores, "to_move": game.to_move, "events": game.events,
        "open": game.open_value, "bone": game.bone_pos, "selection": env.agent_selection,
        "cumulative": dict(env.unwrapped._cumulative_rewards),
    })


@pytest.fixture
def env():
    e = allfives_env.env(num_players=2)
    e.reset(seed=0)
    return e


@pytest.mark.parametrize("action, message", [
    (114, "out of range"), (-1, "out of range"), (2.5, "out of range"), ("draw", "not an integer"),
    (None, "step(None) is only for agents that are done"),
])
def test_out_of_range_actions(env, action, message):
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match="allowed|only") as err:
        env.step(action)
    assert message in str(err.value)
    assert snapshot(env) == before


def test_illegal_action_names_the_legal_ones(env):
    before = snapshot(env)
    mask = env.last()[0]["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    with pytest.raises(IllegalActionError, match=r"is not legal for player_\d; legal now: \['\[") as err:
        env.step(illegal)
    assert "draw" in str(err.value) or "@" in str(err.value)
    assert snapshot(env) == before
    env.step(int(np.flatnonzero(mask)[0]))  # the env still works


def test_numpy_integer_actions_are_accepted(env):
    mask = env.last()[0]["action_mask"]
    env.step(np.int64(np.flatnonzero(mask)[0]))


def test_step_after_the_game_ended():
    env = allfives_env.env(num_players=2, target=5)
    env.reset(seed=1)
    while not any(env.terminations.values()):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    with pytest.raises(IllegalActionError, match=r"done .*step\(None\)"):
        env.step(0)
    while env.agents:
        env.step(None)
    with pytest.raises(IllegalActionError, match="episode is over .* call reset"):
        env.step(0)
    with pytest.raises(IllegalActionError, match="episode is over .* call reset"):
        env.unwrapped.step(None)


@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": 5}, "num_players=5 is not allowed; All Fives is played by 2, 3 or 4"),
    ({"num_players": 1}, "2, 3 or 4"),
    ({"episodes": "game"}, "unknown option(s) ['episodes']; allowed: "),
    ({"episode": "match"}, "episode='match' is not allowed; allowed: ['game', 'hand']"),
    ({"reward": "score"}, "reward='score' is not allowed; allowed: ['points', 'zero_sum', 'win']"),
    ({"divisor": 4}, "divisor=4 is not allowed"),
    ({"hand_size": "huge"}, "hand_size='huge' is not allowed"),
    ({"target": -5}, "target=-5 is not allowed"),
    ({"encoder": "pixels"}, "unknown encoder 'pixels'"),
    ({"render_mode": "rgb"}, "render_mode='rgb' is not allowed"),
])
def test_bad_construction_options(kwargs, message):
    with pytest.raises(ValueError) as err:
        allfives_env.env(**kwargs)
    assert message in str(err.value)


@pytest.mark.parametrize("options, message", [
    ({"hands": [[0, 1, 2, 3, 4, 5, 6, 7, 8]]}, "'hands' has 1 hands; 2 players need 2"),
    ({"hands": [list(range(9)), list(range(9, 17))]}, "hand of seat 1 has 8 tiles"),
    ({"hands": [list(range(9)), list(range(8, 17))]}, "repeated [8]"),
    ({"hands": [list(range(9)), list(range(9, 18))], "boneyard": list(range(18, 27))}, "missing [27]"),
    ({"hands": [list(range(9)), list(range(9, 17)) + [30]]}, "30 in 'hands' is not a tile id"),
    ({"leader": 2}, "leader=2 is not a seat; allowed 0..1"),
    ({"scores": [250, 0]}, "already at the target 250"),
    ({"scores": [1.25, 0]}, "whole or half points"),
    ({"scores": [0]}, "'scores' needs 2 entries"),
    ({"boneyard": list(range(10))}, "a 'boneyard' needs the 'hands'"),
])
def test_malformed_deals(options, message):
    env = allfives_env.env(num_players=2)
    with pytest.raises(ValueError) as err:
        env.reset(seed=0, options=options)
    assert message in str(err.value)


def test_reset_options_reproduce_a_position():
    env = allfives_env.env(num_players=3)
    hands = [[0, 1, 2, 3, 4, 5, 6], [7, 8, 9, 10, 11, 12, 13], [14, 15, 16, 17, 18, 19, 20]]
    boneyard = [27, 26, 25, 24, 23, 22, 21]
    env.reset(seed=5, options={"hands": hands, "boneyard": boneyard, "leader": 2, "scores": [10, 22.5, 0]})
    game = env.unwrapped.game
    assert env.agent_selection == "player_2"
    assert game.boneyard == boneyard and game.scores == [10.0, 22.5, 0.0]
    assert [sorted(t for t in range(28) if h >> t & 1) for h in game.hands] == hands
    assert env.infos["player_0"]["scores"] == (10.0, 22.5, 0.0)


def test_step_before_reset_is_an_error():
    env = allfives_env.env(num_players=2)
    with pytest.raises(Exception, match="reset"):
        env.step(0)


def test_a_refused_reset_changes_nothing():
    """A malformed position is refused before the game, the seed or the agents change."""
    env = allfives_env.env(num_players=2)
    env.reset(seed=4)
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    before = snapshot(env)
    rng_state = env.unwrapped._rng.bit_generator.state
    with pytest.raises(ValueError, match="repeated"):
        env.reset(seed=9, options={"hands": [list(range(9)), list(range(8, 17))], "leader": 1, "scores": [5, 5]})
    assert snapshot(env) == before
    assert env.unwrapped._rng.bit_generator.state == rng_state
    obs, *_ = env.last()
    env.step(int(np.flatnonzero(obs["action_mask"])[0]))  # the game goes on
