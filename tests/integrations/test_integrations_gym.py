"""The single-agent Gymnasium wrapper: API conformance, rewards, seeding, seats, bad input."""

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from allfives_env import IllegalActionError
from allfives_env.agents import GreedyAgent, make_agent
from allfives_env.arena import run_match
from allfives_env.integrations import ENV_ID, PolicyAgent, SingleAgentAllFives
from allfives_env.integrations.gym_vector import AllFivesVectorEnv
from allfives_env.rules import RulesConfig
from allfives_env.rules.actions import PASS
from allfives_env.rules.tiles import parse_tile

pytestmark = pytest.mark.filterwarnings("ignore:.*Box observation space (minimum|maximum).*:UserWarning")


def play_episode(env, seed, action_rng):
    """Random legal play through one episode; returns (observations, rewards, infos)."""
    obs, info = env.reset(seed=seed)
    observations, rewards, infos = [obs], [], [info]
    done = False
    while not done:
        action = int(action_rng.choice(np.flatnonzero(env.action_masks())))
        obs, reward, done, truncated, info = env.step(action)
        assert not truncated
        observations.append(obs)
        rewards.append(reward)
        infos.append(info)
    return observations, rewards, infos


@pytest.mark.parametrize("kwargs", [
    {},
    {"obs": "flat", "opponents": "greedy"},
    {"num_players": 4, "control": "side", "opponents": "heuristic"},
    {"num_players": 3, "learner": 1, "opponents": ["greedy", "random"], "reward": "zero_sum"},
    {"episode": "hand", "reward": "win", "auto_forced": True},
    {"encoder": "history", "episode": "hand"},
])
def test_check_env_passes(kwargs):
    check_env(SingleAgentAllFives(**kwargs), skip_render_check=True)


@pytest.mark.parametrize("render_mode", ["ansi", "rgb_array"])
def test_the_render_check_passes_without_a_render_warning(render_mode, recwarn):
    check_env(SingleAgentAllFives(render_mode=render_mode))
    render_warnings = [str(w.message) for w in recwarn if "render" in str(w.message).lower()
                       and "spec" not in str(w.message)]  # no spec: the env was built without gymnasium.make
    assert render_warnings == []


def test_registered_id_makes_the_wrapper():
    env = gymnasium.make(f"allfives_env.integrations:{ENV_ID}", num_players=3, opponents="greedy", obs="flat")
    assert isinstance(env.unwrapped, SingleAgentAllFives)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    mask = env.get_wrapper_attr("action_masks")()
    assert mask.dtype == bool and mask.any() and np.array_equal(mask, info["action_mask"].astype(bool))


def test_dict_observation_carries_the_mask():
    env = SingleAgentAllFives(opponents="greedy")
    obs, info = env.reset(seed=5)
    assert env.observation_space.contains(obs)
    assert np.array_equal(obs["action_mask"].astype(bool), env.action_masks())
    assert np.array_equal(obs["action_mask"], info["action_mask"])
    assert env.aec.game.to_move == info["seat"] in info["learner_seats"]


@pytest.mark.parametrize("num_players,control,reward", [
    (2, "seat", "points"), (3, "seat", "points"), (4, "seat", "points"), (4, "side", "points"),
    (3, "seat", "zero_sum"), (4, "side", "zero_sum"),
])
def test_episode_return_is_the_sides_result(num_players, control, reward):
    """Every point the learner's side gains reaches it, opponents' turns and the
    deal before its first decision included."""
    env = SingleAgentAllFives(num_players=num_players, control=control, opponents="greedy", reward=reward, target=100)
    rng = np.random.default_rng(0)
    for seed in range(6):
        _, rewards, infos = play_episode(env, seed, rng)
        scores = infos[-1]["scores"]
        side = env.config.side_of(infos[-1]["learner_seats"][0])
        others = [s for i, s in enumerate(scores) if i != side]
        want = scores[side] if reward == "points" else scores[side] - sum(others) / len(others)
        assert sum(rewards) == pytest.approx(want)
        assert max(scores) >= 100


def test_win_reward_pays_once_at_the_end():
    env = SingleAgentAllFives(opponents="random", reward="win", target=60)
    rng = np.random.default_rng(1)
    for seed in range(4):
        _, rewards, infos = play_episode(env, seed, rng)
        assert all(r == 0 for r in rewards[:-1])
        side = env.config.side_of(infos[-1]["learner_seats"][0])
        won = side in env.aec.game.winners
        assert rewards[-1] == (1.0 if won else -1.0)


def test_hand_episodes_end_with_the_hand():
    env = SingleAgentAllFives(num_players=3, opponents="greedy", episode="hand")
    play_episode(env, 2, np.random.default_rng(2))
    game = env.aec.game
    assert game.hand_over and not game.game_over


def test_seeded_resets_replay_exactly():
    def trajectory(seed):
        env = SingleAgentAllFives(num_players=3, opponents=["search:samples=2", "heuristic"])
        rng = np.random.default_rng(7)
        out = []
        for episode in range(2):
            obs, rewards, infos = play_episode(env, seed if episode == 0 else None, rng)
            out.append((np.stack([o["observation"] for o in obs]), rewards, [i["seat"] for i in infos]))
        return out

    a, b, c = trajectory(11), trajectory(11), trajectory(12)
    for (oa, ra, sa), (ob, rb, sb) in zip(a, b):
        assert np.array_equal(oa, ob) and ra == rb and sa == sb
    assert not all(len(x[1]) == len(y[1]) and np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_learner_seat_random_or_fixed():
    env = SingleAgentAllFives(num_players=4, learner="random", opponents="random", target=30)
    seats = set()
    env.reset(seed=0)
    for _ in range(24):
        _, info = env.reset()
        seats.add(info["learner_seats"][0])
        assert info["seat"] == info["learner_seats"][0]
    assert seats == {0, 1, 2, 3}
    env = SingleAgentAllFives(num_players=4, learner=2, opponents="random", target=30)
    rng = np.random.default_rng(3)
    for seed in range(3):
        _, _, infos = play_episode(env, seed, rng)
        assert {i["seat"] for i in infos} == {2}
    _, info = env.reset(seed=0, options={"learner": 1})
    assert info["learner_seats"] == (1,)


def test_side_control_plays_both_partners():
    env = SingleAgentAllFives(num_players=4, learner=1, control="side", opponents="greedy", target=60)
    _, _, infos = play_episode(env, 4, np.random.default_rng(4))
    assert {i["seat"] for i in infos} == {1, 3}
    assert all(i["learner_seats"] == (1, 3) for i in infos)


class RecordingAgent(GreedyAgent):
    """Greedy, remembering which seats it was given."""

    def __init__(self, tag):
        super().__init__()
        self.tag, self.seats = tag, []

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        self.seats.append(seat)


def test_opponent_list_is_in_play_order_after_the_learner():
    agents = [RecordingAgent("a"), RecordingAgent("b"), RecordingAgent("c")]
    env = SingleAgentAllFives(num_players=4, learner="random", opponents=agents)
    for seed in range(6):
        _, info = env.reset(seed=seed)
        seat = info["learner_seats"][0]
        assert [a.seats[-1] for a in env._opponents] == [(seat + k) % 4 for k in (1, 2, 3)]


def test_user_class_and_agent_objects_as_opponents():
    env = SingleAgentAllFives(num_players=3, opponents="allfives_env.agents.heuristic:HeuristicAgent")
    play_episode(env, 0, np.random.default_rng(0))
    shared = GreedyAgent()
    env = SingleAgentAllFives(num_players=3, opponents=shared)  # one object for two seats: copied
    assert env._opponents[0] is shared and env._opponents[1] is not shared
    play_episode(env, 0, np.random.default_rng(0))


def test_illegal_action_is_penalized_or_raises():
    env = SingleAgentAllFives(opponents="greedy")
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs2, reward, done, truncated, info2 = env.step(illegal)
    assert reward == -1.0 and info2["illegal_action"] and not done and not truncated
    assert np.array_equal(obs["observation"], obs2["observation"])
    with pytest.raises(IllegalActionError, match="out of range"):
        env.step(200)  # outside the action space: always an error
    for flag in (True, False, np.True_):  # in Discrete(114) by Gymnasium's check, but not an action id
        with pytest.raises(IllegalActionError, match="is not an integer; allowed: integers 0..113"):
            env.step(flag)
    env = SingleAgentAllFives(opponents="greedy", illegal_action="raise")
    env.reset(seed=0)
    with pytest.raises(IllegalActionError, match="legal now"):
        env.step(illegal)


def test_step_outside_an_episode_raises():
    env = SingleAgentAllFives(opponents="random", episode="hand")
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(0)
    play_episode(env, 0, np.random.default_rng(0))
    assert not env.action_masks().any()
    with pytest.raises(IllegalActionError, match="reset"):
        env.step(112)


@pytest.mark.parametrize("kwargs,message", [
    ({"learner": 2}, r"learner=2 is not a seat of a 2-player game; allowed: 'random' or a seat 0\.\.1"),
    ({"learner": -1}, "not a seat"),
    ({"learner": "first"}, "not a seat"),
    ({"learner": True}, "not a seat"),
    ({"opponents": "grandmaster"}, r"opponents\[0\]: unknown agent spec 'grandmaster'; allowed: .*random"),
    ({"num_players": 3, "opponents": ["greedy", "nope"]}, r"opponents\[1\]: unknown agent spec 'nope'"),
    ({"opponents": "ppo:/no/such/file.pt"}, "checkpoint not found"),
    ({"opponents": "no_such_module_xyz:Bot"}, "cannot import module 'no_such_module_xyz'"),
    ({"opponents": "allfives_env.agents:NoSuchAgent"}, "has no 'NoSuchAgent'"),
    ({"opponents": 42}, "neither an agent spec nor an agent"),
    ({"num_players": 4, "opponents": ["greedy", "greedy"]}, r"2 opponent specs for 3 non-learner seat\(s\)"),
    ({"num_players": 4, "control": "side", "opponents": ["greedy"] * 3}, r"3 opponent specs for 2"),
    ({"num_players": 5}, "num_players=5 is not allowed"),
    ({"control": "team"}, "control='team' is not allowed"),
    ({"obs": "image"}, "obs='image' is not allowed"),
    ({"illegal_action": "ignore"}, "illegal_action='ignore' is not allowed"),
    ({"rewards": "points"}, r"unknown option\(s\) \['rewards'\]"),
])
def test_bad_construction_fails_with_a_clear_message(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SingleAgentAllFives(**kwargs)


@pytest.mark.parametrize("make, own", [
    (lambda: SingleAgentAllFives(oponents="greedy"), "'num_players', 'learner', 'opponents', 'control', 'obs', "
                                                     "'illegal_action', 'illegal_reward', 'render_mode', "),
    (lambda: AllFivesVectorEnv(2, oponents="greedy"), "'num_envs', 'num_players', 'learner', 'opponents', 'control', "
                                                      "'obs', 'illegal_action', 'illegal_reward', 'reward_scale', "),
])
def test_an_unknown_option_lists_the_wrappers_own_options_first(make, own):
    """A misspelt wrapper option was answered with the inner env's options alone."""
    with pytest.raises(ValueError) as err:
        make()
    assert str(err.value).startswith(f"unknown option(s) ['oponents']; allowed: [{own}'episode', 'reward', ")
    assert str(err.value).endswith("'divisor']")


def test_bad_reset_learner_option():
    env = SingleAgentAllFives()
    with pytest.raises(ValueError, match="learner=7"):
        env.reset(seed=0, options={"learner": 7})


def test_policy_agent_plays_in_the_arena():
    config = RulesConfig(num_players=2, target=60)
    calls = []

    def first_legal(obs, mask):
        assert obs["observation"].shape == (277,) and mask.dtype == bool
        calls.append(1)
        return np.flatnonzero(mask)[0]

    match = run_match(config, [PolicyAgent(first_legal, name="first"), "greedy"], games=4, seed=0)
    assert len(match.games) == 4 and calls
    assert match.agent_stats()[0].spec == "first"

    with pytest.raises(ValueError, match="returned no action id: action 999 is out of range"):
        run_match(config, [PolicyAgent(lambda obs, mask: 999, obs="flat"), "greedy"], games=2, seed=0)
    with pytest.raises(ValueError, match=r"chose an illegal action \d+; legal: \["):
        run_match(config, [PolicyAgent(lambda obs, mask: int(np.flatnonzero(~mask)[0]), obs="flat"), "greedy"],
                  games=2, seed=0)


# ------------------------------------------------------------------ issue 23
@pytest.mark.parametrize("num_players", [2, 3])
def test_side_control_needs_four_players(num_players):
    with pytest.raises(ValueError, match=rf"control='side' is not allowed with {num_players} players: a side is one "
                                         r"seat unless 4 players play as two partnerships; use control='seat'"):
        SingleAgentAllFives(num_players=num_players, control="side")


@pytest.mark.parametrize("kwargs,message", [
    ({"control": None}, r"control=None is not allowed; allowed: \['seat', 'side'\]"),
    ({"control": ["seat"]}, r"control=\['seat'\] is not allowed"),
    ({"obs": 1}, r"obs=1 is not allowed; allowed: \['dict', 'flat'\]"),
    ({"illegal_action": None}, r"illegal_action=None is not allowed; allowed: \['penalize', 'raise'\]"),
    ({"illegal_reward": "x"}, r"illegal_reward='x' is not allowed; allowed: a finite number"),
    ({"illegal_reward": True}, r"illegal_reward=True is not allowed"),
    ({"illegal_reward": float("nan")}, r"illegal_reward=nan is not allowed"),
    ({"learner": np.bool_(False)}, "not a seat"),
    ({"learner": 1.0}, "not a seat"),
    ({"auto_forced": "yes"}, r"auto_forced='yes' is not allowed; allowed: True or False"),
    ({"auto_forced": 0}, r"auto_forced=0 is not allowed; allowed: True or False"),
    ({"render_mode": "pixels"}, r"render_mode='pixels' is not allowed"),
    ({"episode": None}, r"episode=None is not allowed"),
])
def test_wrapper_options_of_the_wrong_type(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SingleAgentAllFives(**kwargs)


def test_numbers_that_are_numbers_are_taken():
    env = SingleAgentAllFives(illegal_reward=np.float32(-2), learner=np.int64(1), render_mode="rgb_array")
    assert env.illegal_reward == -2.0 and env.learner == 1
    env.reset(seed=0)
    assert env.render().shape == (600, 600, 3)


@pytest.mark.parametrize("seed", ["abc", True, -1, 1.5])
def test_reset_refuses_a_bad_seed(seed):
    env = SingleAgentAllFives(opponents="greedy")
    with pytest.raises(ValueError, match=r"is not allowed; allowed: None or a non-negative integer"):
        env.reset(seed=seed)
    env.reset(seed=np.int64(3))  # a NumPy integer is a seed


def test_a_refused_reset_changes_nothing():
    """A bad position is refused before the wrapper's generator, seats or opponents change: the
    next episode is the one that would have come without the refused call."""
    twin, env = SingleAgentAllFives(opponents="greedy"), SingleAgentAllFives(opponents="greedy")
    twin.reset(seed=4)
    env.reset(seed=4)
    for seed, bad in [(None, {"hands": [[0, 1]]}), (None, {"leader": 5}), (None, {"learner": 9}), (None, "hands"),
                      (99, {"leader": 5}), ("abc", None)]:
        with pytest.raises(ValueError):
            env.reset(seed=seed, options=bad)
    obs, info = env.reset()
    want_obs, want_info = twin.reset()
    assert np.array_equal(obs["observation"], want_obs["observation"]) and info["seat"] == want_info["seat"]
    assert env.aec.game.hands == twin.aec.game.hands


def test_a_whole_float_action_is_its_int_whether_legal_or_not():
    """1.0 and np.int64(1) are the same id: an illegal one is penalized either way, a legal one played."""
    env = SingleAgentAllFives(opponents="greedy")
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    for action in (float(illegal), np.float64(illegal), np.int64(illegal), np.array(illegal)):
        _, reward, _, _, info = env.step(action)
        assert reward == -1.0 and info["illegal_action"]
    with pytest.raises(IllegalActionError, match="is not an integer"):
        env.step(0.5)


def test_action_masks_before_reset_says_reset_first():
    from allfives_env.env.aec import ResetNeededError

    with pytest.raises(ResetNeededError, match=r"action_masks\(\) before reset\(\); call reset\(\) first"):
        SingleAgentAllFives().action_masks()


@pytest.mark.parametrize("shape", [(1,), (1, 1)])
def test_a_one_element_action_array_is_its_id(shape):
    """A policy's batch of one: played as its element, as before."""
    env = SingleAgentAllFives(opponents="random", backend="python")
    env.reset(seed=0)
    legal = int(np.flatnonzero(env.action_masks())[0])
    reference = SingleAgentAllFives(opponents="random", backend="python")
    reference.reset(seed=0)
    np.testing.assert_array_equal(env.step(np.full(shape, legal))[0]["observation"],
                                  reference.step(legal)[0]["observation"])


def test_a_policy_agent_whose_predict_returns_no_id_is_named():
    agent = PolicyAgent(lambda obs, mask: 0.7, obs="flat")
    with pytest.raises(ValueError, match=r"predict returned no action id: action 0\.7 is not an integer"):
        run_match(RulesConfig(), [agent, "random"], games=2, seed=0)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_reset_learner_equal_to_the_seat_count_is_refused_and_changes_nothing(num_players):
    """R2: the seats are 0..n-1, so ``learner=n`` is one past the last seat: a ValueError naming the allowed
    seats, like any other bad value, and (as a refused reset) the wrapper's generator is left as it was."""
    env = SingleAgentAllFives(num_players=num_players, opponents="random")
    env.reset(seed=3)
    state = env.np_random.bit_generator.state
    with pytest.raises(ValueError, match=rf"learner={num_players}; allowed: a seat 0\.\.{num_players - 1}"):
        env.reset(options={"learner": num_players})
    assert env.np_random.bit_generator.state == state


def _scoring_lead_position():
    """4 players: seat 0 leads and holds only tiles whose pips are a multiple of 5 ([0|5] [1|4] [2|3] [4|6]
    [5|5]), so whatever it leads scores 5 or 10 for side 0 (R6, R14, R15); the other seats get the rest."""
    lead = [parse_tile(t) for t in ("0|5", "1|4", "2|3", "4|6", "5|5")]
    rest = [t for t in range(28) if t not in lead]
    size = RulesConfig(num_players=4).tiles_per_hand
    hands = [lead] + [rest[i * size:(i + 1) * size] for i in range(3)]
    return {"hands": hands, "boneyard": rest[3 * size:], "leader": 0}


def test_an_illegal_action_reports_the_points_that_were_waiting():
    """With ``reward="zero_sum"`` the learner (seat 1, side 1) gets minus what side 0 scored on its lead before
    the learner's first decision. A penalized illegal action returns that waiting reward plus
    ``illegal_reward``, once: the next legal step does not pay it again, and the episode's total equals the
    same play without the illegal action plus ``illegal_reward``."""
    def run(with_illegal):
        env = SingleAgentAllFives(num_players=4, learner=1, opponents="greedy", reward="zero_sum",
                                  episode="hand", illegal_reward=-1.0)
        _, info = env.reset(seed=5, options=_scoring_lead_position())
        lead_points = info["scores"][0]
        assert lead_points in (5.0, 10.0) and info["seat"] == 1
        rewards = []
        if with_illegal:
            assert not env.action_masks()[PASS]  # the boneyard is not empty: passing is not allowed (R13)
            _, reward, done, _, info = env.step(PASS)
            assert info["illegal_action"] and not done
            assert reward == -lead_points - 1.0
            rewards.append(reward)
        rng = np.random.default_rng(0)
        done = False
        while not done:
            action = int(rng.choice(np.flatnonzero(env.action_masks())))
            _, reward, done, _, _ = env.step(action)
            rewards.append(reward)
        return rewards, lead_points

    (plain, lead_points), (penalized, _) = run(False), run(True)
    assert penalized[1] == pytest.approx(plain[0] + lead_points)  # the waiting -lead_points went with the penalty
    assert sum(penalized) == pytest.approx(sum(plain) - 1.0)
    assert penalized[2:] == plain[1:]


def test_a_reset_refused_by_any_error_leaves_the_generator_as_it_was(monkeypatch):
    """The generator is restored whatever the refusal's type (it was for ValueError alone: a TypeError from a
    malformed option left it advanced, or re-seeded with a given seed, and later episodes differed)."""
    env = SingleAgentAllFives(num_players=2, opponents="random")
    env.reset(seed=3)
    state, seed = env.np_random.bit_generator.state, env._np_random_seed

    def refuse(*args, **kwargs):
        raise TypeError("refused")

    monkeypatch.setattr(env.aec, "reset", refuse)
    for given in (None, 7):
        with pytest.raises(TypeError, match="refused"):
            env.reset(seed=given, options={"leader": 1})
        assert env.np_random.bit_generator.state == state and env._np_random_seed == seed


def test_a_given_position_that_ends_at_once_is_refused_and_says_the_episode_is_over():
    """R15, R3: the opponent leads [5|5] for 10 at 245 of 250 and wins before the learner decides, so the reset
    is refused; the position was played out, so the next step asks for a reset, the generator is as it was and
    the user's own opponent object still plays (a deep copy to keep the old episode would replace it)."""
    opponent = make_agent("greedy")
    env = SingleAgentAllFives(num_players=2, learner=0, opponents=opponent)
    env.reset(seed=1)
    state = env.np_random.bit_generator.state
    five_five = parse_tile("5|5")
    rest = [t for t in range(28) if t != five_five]
    position = {"hands": [rest[:9], [five_five] + rest[9:17]], "boneyard": rest[17:], "leader": 1, "scores": [0, 245]}
    with pytest.raises(ValueError, match="the given position ends before the learner has a decision"):
        env.reset(options=position)
    assert env.np_random.bit_generator.state == state
    with pytest.raises(IllegalActionError, match="the episode is over; call reset"):
        env.step(0)
    env.reset(seed=2)
    assert env._seat_agent[1] is opponent


@pytest.mark.parametrize("kwargs, words", [
    ({"name": 5}, "name=5 is not allowed; allowed: a non-empty string"),  # repr(agent) raised TypeError later
    ({"name": ""}, "name='' is not allowed"),
    ({"encoder": "nope"}, "unknown encoder 'nope'; allowed: "),  # was refused only at the first game
])
def test_a_policy_agent_refuses_a_bad_name_or_encoder_when_built(kwargs, words):
    with pytest.raises(ValueError, match=words):
        PolicyAgent(lambda obs, mask: 0, **kwargs)
