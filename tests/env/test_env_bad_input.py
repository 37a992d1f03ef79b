"""Bad input gets an error naming the problem and what is allowed; nothing changes."""

import copy
import re

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


class EncoderWithoutConfig:
    """Has an encoder's attributes, but its constructor takes no RulesConfig."""

    size = 3

    def encode(self, game, seat):
        return np.zeros(3, np.float32)


@pytest.mark.parametrize("action, message", [
    (114, "out of range"), (-1, "out of range"), (2.5, "2.5 is not an integer"), ("draw", "not an integer"),
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
    # numbers past a float's range: OverflowError before
    ({"scores": [1e308, 0]}, "score of side 0 is 1e+308; scores are finite whole or half points"),
    ({"scores": [10 ** 400, 0]}, "scores are finite whole or half points"),
    ({"hands": [list(range(8)) + [float("inf")], list(range(9, 18))]}, "inf in 'hands' is not a tile id"),
    # containers read by their keys, their unordered items or their characters: a dict's keys were the scores
    ({"scores": {0: 100, 1: 50}}, "'scores' holds {0: 100, 1: 50}; allowed: a list of each side's score"),
    ({"hands": 5}, "'hands' holds 5; allowed: one list of tile ids per seat"),  # a TypeError
    ({"hands": [set(range(9)), list(range(9, 18))]}, "'hands' holds {0, 1,"),
    ({"hands": [list(range(9)), list(range(9, 18))], "boneyard": "abc"}, "'boneyard' holds 'abc'"),
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


# ------------------------------------------------------------------ issue 23
def play_to_the_end(env):
    """Random-first legal play until every agent is terminated (none has stepped None yet)."""
    while not all(env.terminations.values()):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))


@pytest.mark.parametrize("wrapped", [True, False])
def test_last_after_every_agent_stepped_none_says_so(wrapped):
    """As in PettingZoo's classic envs each agent gets its final values from last() before its
    step(None); after the last one, last() has no agent: a RuntimeError saying so (not a KeyError)."""
    env = allfives_env.env(num_players=3, target=10) if wrapped else allfives_env.raw_env(num_players=3, target=10)
    env.reset(seed=2)
    play_to_the_end(env)
    finals = {}
    while env.agents:
        obs, reward, terminated, truncated, info = env.last()
        assert terminated and not truncated and obs["action_mask"].sum() == 0
        finals[env.agent_selection] = reward
        env.step(None)
    assert sorted(finals) == env.possible_agents
    for _ in range(2):  # asking again changes nothing
        with pytest.raises(RuntimeError, match=r"every agent has stepped None.*call reset\(\) first"):
            env.last()
        with pytest.raises(RuntimeError, match="every agent"):
            env.last(observe=False)
    env.reset(seed=3)
    assert env.last()[2] is False  # a reset starts over


@pytest.mark.parametrize("wrapped", [True, False])
def test_step_and_last_before_reset(wrapped):
    from allfives_env.env.aec import ResetNeededError

    env = allfives_env.env(num_players=2) if wrapped else allfives_env.raw_env(num_players=2)
    with pytest.raises(ResetNeededError, match=r"step\(\) before reset\(\); call reset\(\) first") as err:
        env.step(0)
    assert isinstance(err.value, RuntimeError) and isinstance(err.value, AssertionError)  # PettingZoo raises the latter
    with pytest.raises((ResetNeededError, AttributeError), match="before reset"):
        env.last()


@pytest.mark.parametrize("seed", ["abc", True, False, np.bool_(True), -1, 1.5, np.float64(2.0), [1, 2], "3"])
def test_reset_refuses_a_seed_that_is_not_a_non_negative_integer(seed):
    env = allfives_env.env(num_players=2)
    env.reset(seed=0)
    before = snapshot(env)
    rng_state = env.unwrapped._rng.bit_generator.state
    with pytest.raises(ValueError) as err:
        env.reset(seed=seed)
    assert str(err.value) == f"seed={seed!r} is not allowed; allowed: None or a non-negative integer"
    assert snapshot(env) == before and env.unwrapped._rng.bit_generator.state == rng_state


@pytest.mark.parametrize("seed", [None, 0, 7, np.int64(3), np.uint32(5), 2**70])
def test_reset_takes_none_and_non_negative_integers(seed):
    env = allfives_env.env(num_players=2)
    env.reset(seed=seed)
    assert env.agents == env.possible_agents


@pytest.mark.parametrize("options", ["abc", 5, [("leader", 0)]])
def test_reset_options_must_be_a_mapping(options):
    env = allfives_env.env(num_players=2)
    env.reset(seed=0)
    before = snapshot(env)
    with pytest.raises(ValueError, match=r"options=.* is not allowed; allowed: None or a dict with any of \['hands'"):
        env.reset(seed=1, options=options)
    assert snapshot(env) == before


@pytest.mark.parametrize("kwargs, message", [
    ({"num_players": "2"}, "num_players='2' is not allowed; All Fives is played by 2, 3 or 4 players"),
    ({"num_players": 2.0}, "num_players=2.0 is not allowed"),
    ({"num_players": True}, "num_players=True is not allowed"),
    ({"target": "x"}, "target='x' is not allowed; allowed: a positive number of points up to 10,000"),
    ({"target": True}, "target=True is not allowed"),
    ({"target": float("inf")}, "target=inf is not allowed; allowed: a positive number of points up to 10,000"),
    ({"target": float("nan")}, "target=nan is not allowed"),
    ({"hand_size": 3}, "hand_size=3 is not allowed; allowed: ['standard', 'five_each', 'seven_five']"),
    ({"first_leader": None}, "first_leader=None is not allowed; allowed: ['random', 'heaviest_tile']"),
    ({"hand_scoring": 0}, "hand_scoring=0 is not allowed; allowed: ['bonus', 'bonus_net', 'penalty']"),
    ({"divisor": 5.0}, "divisor=5.0 is not allowed; allowed: the integer 5 (All Fives) or 3 (All Threes)"),
    ({"divisor": "5"}, "divisor='5' is not allowed"),
    ({"render_mode": 1}, "render_mode=1 is not allowed; allowed: None, 'human', 'ansi', 'rgb_array'"),
    ({"render_mode": ["human"]}, "render_mode=['human'] is not allowed"),
    ({"encoder": 5}, "encoder=5 is not allowed; allowed: ['default', 'history'], an encoder class, or an object"),
    ({"encoder": None}, "encoder=None is not allowed"),
    ({"encoder": int}, "encoder=<class 'int'> is not allowed"),
    ({"encoder": EncoderWithoutConfig}, "encoder class EncoderWithoutConfig cannot be built as "
                                         "EncoderWithoutConfig(config)"),
    ({"backend": None}, "backend=None is not allowed; allowed: ['auto', 'numba', 'python']"),
    ({"backend": "cuda"}, "backend='cuda' is not allowed"),
    ({"episode": None}, "episode=None is not allowed; allowed: ['game', 'hand']"),
    ({"episode": 1}, "episode=1 is not allowed"),
    ({"reward": None}, "reward=None is not allowed; allowed: ['points', 'zero_sum', 'win']"),
    ({"auto_forced": "no"}, "auto_forced='no' is not allowed; allowed: True or False"),
    ({"auto_forced": 1}, "auto_forced=1 is not allowed; allowed: True or False"),
    ({"auto_forced": None}, "auto_forced=None is not allowed"),
])
def test_options_of_the_wrong_type(kwargs, message):
    for make in (allfives_env.env, allfives_env.raw_env):
        with pytest.raises(ValueError) as err:
            make(**kwargs)
        assert message in str(err.value)
        assert "\n" not in str(err.value)


@pytest.mark.parametrize("agent", ["player_9", "bob", None, 0, ["player_0"]])
def test_unknown_agents_are_named(env, agent):
    before = snapshot(env)
    for call in (env.observe, env.unwrapped.observe, env.observation_space, env.action_space):
        with pytest.raises(ValueError, match=r"is not in this game; allowed: \['player_0', 'player_1'\]"):
            call(agent)
    assert snapshot(env) == before


@pytest.mark.parametrize("action", ["3", b"3", True, False, np.bool_(True)])
def test_strings_and_booleans_are_not_actions(env, action):
    """int("3") and int(True) would make them legal ids."""
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=r"is not an integer; allowed: integers 0\.\.113"):
        env.step(action)
    assert snapshot(env) == before


@pytest.mark.parametrize("action", [float("inf"), float("nan"), -float("inf"), 2 ** 70])
def test_infinite_and_huge_actions_are_refused_in_one_line(env, action):
    before = snapshot(env)
    with pytest.raises(IllegalActionError, match=r"allowed: integers 0\.\.113"):
        env.step(action)
    assert snapshot(env) == before


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("call", ["state", "observe", "render"])
def test_reads_before_reset_say_reset_first(backend, call):
    from allfives_env.env.aec import ResetNeededError

    env = allfives_env.raw_env(num_players=2, backend=backend, render_mode="ansi")
    calls = {"state": env.state, "observe": lambda: env.observe("player_0"), "render": env.render}
    with pytest.raises(ResetNeededError, match=rf"{call}\(\) before reset\(\); call reset\(\) first"):
        calls[call]()


@pytest.mark.parametrize("num_players", [np.int8(2), np.int8(3), np.int8(4), np.uint8(4), np.int64(4)])
def test_a_small_numpy_integer_player_count_plays_as_the_int(num_players):
    """An int8 count stored as given overflowed in sizes computed from it (n * 114)."""
    env = allfives_env.env(num_players=num_players)
    env.reset(seed=3)
    reference = allfives_env.env(num_players=int(num_players))
    reference.reset(seed=3)
    assert type(env.unwrapped.config.num_players) is int
    np.testing.assert_array_equal(env.last()[0]["observation"], reference.last()[0]["observation"])


class ThreeZeros:
    """A custom encoder exactly as docs/environment.md describes one: ``size`` and ``encode(game, seat)``."""

    size = 3

    def encode(self, game, seat):
        return np.full(3, seat + 1, np.float32)


def test_state_works_with_a_custom_encoder_of_the_documented_signature():
    env = allfives_env.env(encoder=ThreeZeros())
    env.reset(seed=0)
    state = env.state()
    n = 2
    assert state.shape == (n * 28 + 28 + 3,) == env.unwrapped.state_space.shape
    seat = env.unwrapped.agent_name_mapping[env.agent_selection]
    np.testing.assert_array_equal(state[-3:], np.full(3, seat + 1))


class WrongSize:
    size = 5

    def encode(self, game, seat):
        return np.zeros(3)


@pytest.mark.parametrize("call", ["last", "state"])
def test_a_custom_encoder_whose_output_does_not_match_its_size_is_named(call):
    env = allfives_env.raw_env(encoder=WrongSize())
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"encoder WrongSize\.encode returned shape \(3,\); allowed: shape "
                                         r"\(size,\) = \(5,\)"):
        getattr(env, call)()


def play_out(env) -> list:
    """Play ``env`` to its end, always the highest legal id; every observation, mask, reward and score seen."""
    seen = []
    while env.agents:
        obs, reward, done, truncated, info = env.last()
        legal = np.flatnonzero(obs["action_mask"])
        if not done:  # the masks follow this env's own game, and info's mask is the env's live one
            assert list(legal) == env.unwrapped.game.legal_actions()
            np.testing.assert_array_equal(info["action_mask"], obs["action_mask"])
        seen.append((env.agent_selection, obs["observation"].tolist(), legal.tolist(), reward,
                     tuple(env.unwrapped.core.scores)))
        env.step(None if done or truncated else int(legal[-1]))
    return seen


@pytest.mark.parametrize("backend", ["python", "numba"])
@pytest.mark.parametrize("how", ["deepcopy", "pickle"])
def test_a_copied_env_plays_on_exactly_as_the_original_and_apart_from_it(backend, how):
    """Search code copies envs; the masks are views of the core's buffers and must stay linked in the copy."""
    import pickle

    env = allfives_env.env(num_players=4, backend=backend)
    env.reset(seed=5)
    for _ in range(3):
        env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[0]))
    twin = copy.deepcopy(env) if how == "deepcopy" else pickle.loads(pickle.dumps(env))
    before = env.last()[0]["observation"].copy()
    twin_seen = play_out(twin)
    np.testing.assert_array_equal(env.last()[0]["observation"], before)  # the copy's game did not move this one
    assert play_out(env) == twin_seen and len(twin_seen) > 10


def test_tensors_are_read_as_their_element_and_a_bool_tensor_is_no_action(env):
    import torch

    with pytest.raises(IllegalActionError, match=r"tensor\(True\) is not an integer"):
        env.step(torch.tensor(True))
    legal = int(np.flatnonzero(env.last()[0]["action_mask"])[0])
    reference = allfives_env.env(num_players=2)
    reference.reset(seed=0)  # as the fixture
    env.step(torch.tensor([legal]))
    reference.step(legal)
    assert snapshot(env) == snapshot(reference) and env.unwrapped.game.events


def _encoder_class(size, encode=True):
    """An encoder class built as ``cls(config)``, with ``size`` (left out when ``...``) and ``encode``."""
    body = {"__init__": lambda self, config: None}
    if size is not ...:
        body["size"] = size
    body["encode"] = (lambda self, game, seat: np.zeros(3, np.float32)) if encode else None
    return type("Custom", (), body)


@pytest.mark.parametrize("encoder, message", [
    (_encoder_class(4.0), "encoder class Custom: size=4.0 is not allowed; allowed: a positive whole number"),
    (_encoder_class(-1)(None), "encoder Custom: size=-1 is not allowed; allowed: a positive whole number"),
    (_encoder_class(0), "size=0 is not allowed"),
    (_encoder_class(True), "size=True is not allowed"),  # was an observation space of one float
    (_encoder_class(...), "encoder class Custom: size=None is not allowed"),  # was an AttributeError
    (_encoder_class(3, encode=False), "encoder class Custom has no encode(game, seat) method"),
])
def test_a_custom_encoders_size_and_encode_are_checked_when_the_env_is_built(encoder, message):
    """Gymnasium's TypeError and numpy's negative-dimension error were all the user saw."""
    with pytest.raises(ValueError) as err:
        allfives_env.env(encoder=encoder)
    assert message in str(err.value) and "\n" not in str(err.value)


def test_views_takes_the_observation_dict_and_names_the_size_it_needs(env):
    """views() of the quickstart's obs (a dict) was an AttributeError; a wrong length a reshape error."""
    obs = env.last()[0]
    views = env.unwrapped.encoder.views(obs)
    np.testing.assert_array_equal(views["hand"], env.unwrapped.encoder.views(obs["observation"])["hand"])
    assert views["hand"].sum() == 9  # R4: 9 tiles each with 2 players
    size = env.unwrapped.encoder.size
    for bad, shape in ((np.zeros(10), "(10,)"), (np.zeros((2, size + 1)), f"(2, {size + 1})"), (1.0, "()")):
        with pytest.raises(ValueError, match=rf"^views\(\) takes an observation of {size} floats .*got shape "
                                             rf"{re.escape(shape)}$"):
            env.unwrapped.encoder.views(bad)


def test_an_unknown_option_error_crosses_a_process_boundary():
    """Worker processes (RLlib's env runners, multiprocessing) pickle the error back: it could not be rebuilt."""
    import pickle

    from allfives_env.env.options import UnknownOptionError

    with pytest.raises(UnknownOptionError) as err:
        allfives_env.env(episodes="game")
    again = pickle.loads(pickle.dumps(err.value))
    assert str(again) == str(err.value) and again.unknown == ["episodes"] and "episode" in again.allowed


def test_views_keeps_a_tensor_a_tensor_and_names_a_dict_without_an_observation(env):
    import torch
    size = env.unwrapped.encoder.size
    batch = torch.zeros(4, size, requires_grad=True)  # was "Can't call numpy() on Tensor that requires grad"
    hand = env.unwrapped.encoder.views(batch)["hand"]
    assert isinstance(hand, torch.Tensor) and tuple(hand.shape) == (4, 28)
    with pytest.raises(ValueError, match=r"takes the env's observation dict \(with an 'observation' key\) or the "
                                         r"vector itself; got a dict with keys \['action_mask', 'observations'\]"):
        env.unwrapped.encoder.views({"observations": np.zeros(size), "action_mask": np.ones(114)})  # RLlib's
