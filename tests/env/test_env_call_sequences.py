"""Property test (issue 23): random sequences of valid and invalid calls on the AEC env.

Both backends, 2/3/4 players, game and hand episodes, auto_forced on and off,
every reward mode. Every invalid call must raise (``IllegalActionError`` /
``ValueError`` / ``TypeError`` / ``RuntimeError``) and leave the env exactly
as it was; every episode must still pay each agent what the score sheet says
(R3, R20-R25 through the engine's scores):

* ``points``: the sum of an agent's rewards over the episode is its side's
  final score minus its start score;
* ``zero_sum``: that minus the mean of the other sides' gains;
* ``win``: +1 to the winning side, -1 to the others, 0 to every side of a
  drawn result (a ``"hand"`` episode that does not end the game ranks the
  sides by the points gained in the hand).

The rewards are summed twice, from ``env.rewards`` after every transition and
from what ``last()`` gives each agent (at its turns and at its final
``last()``), and both must match.
"""

import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import allfives_env
from allfives_env import IllegalActionError
from allfives_env.env.aec import ResetNeededError
from allfives_env.rules.actions import NUM_ACTIONS

INVALID = (ValueError, TypeError, RuntimeError)  # IllegalActionError is a ValueError

#: the invalid calls made while the episode runs
LIVE_OPS = ("illegal_id", "out_of_range", "wrong_type", "none_while_live", "observe_unknown", "bad_reset",
            "bad_seed")
WRONG_TYPES = ("3", "draw", 1.5, None, True, np.bool_(False), [1], {"a": 1}, b"1", object())
OUT_OF_RANGE = (NUM_ACTIONS, NUM_ACTIONS + 1, -1, -NUM_ACTIONS, 10**9, 2**70)


def snapshot(env):
    """Everything an invalid call must leave as it was."""
    raw = env.unwrapped
    game = raw.game
    agent = raw.agent_selection
    state = {
        "hands": list(game.hands), "scores": list(game.scores), "to_move": game.to_move,
        "events": copy.deepcopy(game.events), "bone_pos": game.bone_pos, "boneyard": list(game.boneyard),
        "core_scores": raw.core.scores, "selection": agent, "agents": list(raw.agents),
        "rewards": dict(raw.rewards), "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(raw.terminations), "rng": copy.deepcopy(raw._rng.bit_generator.state),
    }
    if agent in raw.agents:
        obs = raw.observe(agent)
        state["obs"] = obs["observation"].tobytes()
        state["mask"] = obs["action_mask"].tobytes()
    return state


def expect_refused(env, call, errors=INVALID):
    """``call()`` raises one of ``errors`` with a one-line message and changes nothing."""
    before = snapshot(env)
    with pytest.raises(errors) as err:
        call()
    message = str(err.value)
    assert message and "\n" not in message
    assert snapshot(env) == before
    return err.value


def invalid_live_call(env, op, pick, target):
    """One invalid call of kind ``op`` while ``env.agent_selection`` is to move (not terminated)."""
    agent = env.agent_selection
    mask = env.unwrapped._masks[env.unwrapped.agent_name_mapping[agent]]
    if op == "illegal_id":
        illegal = np.flatnonzero(mask == 0)
        action = int(illegal[pick % len(illegal)])
        err = expect_refused(env, lambda: env.step(action), IllegalActionError)
        assert "is not legal" in str(err) and "legal now" in str(err)
    elif op == "out_of_range":
        action = OUT_OF_RANGE[pick % len(OUT_OF_RANGE)]
        expect_refused(env, lambda: env.step(action), IllegalActionError)
    elif op == "wrong_type":
        action = WRONG_TYPES[pick % len(WRONG_TYPES)]
        expect_refused(env, lambda: env.step(action), (IllegalActionError, TypeError))
    elif op == "none_while_live":
        expect_refused(env, lambda: env.step(None), IllegalActionError)
    elif op == "observe_unknown":
        name = ("player_9", "bob", None, 3, "Player_0")[pick % 5]
        expect_refused(env, lambda: env.observe(name), ValueError)
    elif op == "bad_reset":
        n = env.unwrapped.config.num_players
        options = ({"leader": n}, {"leader": -1}, {"scores": [target] * env.unwrapped.config.num_sides},
                   {"scores": [0]}, {"hands": [[0]]}, {"boneyard": [1, 2]}, "hands", 5)[pick % 8]
        expect_refused(env, lambda: env.reset(seed=pick, options=options), ValueError)
    elif op == "bad_seed":
        seed = ("abc", -1, 1.5, True, [1, 2])[pick % 5]
        err = expect_refused(env, lambda: env.reset(seed=seed), ValueError)
        assert str(err) == f"seed={seed!r} is not allowed; allowed: None or a non-negative integer"
    else:
        raise AssertionError(op)


def expected_totals(raw, start_scores, reward):
    """Each agent's episode total as the score sheet says."""
    config, core = raw.config, raw.core
    final = core.scores
    gains = [f - s for f, s in zip(final, start_scores)]
    sides = config.num_sides
    if reward == "points":
        per_side = gains
    elif reward == "zero_sum":
        per_side = [g - (sum(gains) - g) / (sides - 1) for g in gains]
    else:
        if core.game_over:
            winners = set(core.winners)
        else:  # a hand episode that did not end the game: the hand's points rank the sides
            best = max(gains)
            winners = {side for side, g in enumerate(gains) if g == best}
        drawn = len(winners) > 1
        per_side = [(0.0 if drawn else 1.0) if side in winners else -1.0 for side in range(sides)]
    return {agent: per_side[config.side_of(seat)] for seat, agent in enumerate(raw.possible_agents)}


def play_episode(env, rng, ops, start_scores, reward, target):
    """Play one episode with random legal moves, making the invalid calls of ``ops`` (step index ->
    list of (op, pick)) on the way; checks the end-of-episode protocol and the rewards."""
    raw = env.unwrapped
    step_totals = {a: r for a, r in raw.rewards.items()}  # what the reset itself paid
    last_totals = dict.fromkeys(raw.possible_agents, 0.0)
    steps = 0
    while not all(env.terminations.values()):
        for op, pick in ops.get(steps, ()):
            invalid_live_call(env, op, pick, target)
        agent = env.agent_selection
        obs, reward_now, terminated, truncated, info = env.last()
        assert not terminated and not truncated
        assert np.array_equal(obs["action_mask"], info["action_mask"])
        last_totals[agent] += reward_now
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) > 0
        env.step(int(legal[rng.integers(len(legal))]))
        for a, r in raw.rewards.items():
            step_totals[a] += r
        steps += 1
        assert steps < 5000, "the episode does not end"

    # ended: a step with an action is refused, every agent steps None after its final last()
    dead = env.agent_selection
    mask = env.unwrapped._masks[env.unwrapped.agent_name_mapping[dead]]
    assert not mask.any()
    expect_refused(env, lambda: env.step(0), IllegalActionError)
    expect_refused(env, lambda: env.step(int(rng.integers(NUM_ACTIONS))), IllegalActionError)
    expect_refused(env, lambda: env.reset(seed="abc"), ValueError)
    while env.agents:
        agent = env.agent_selection
        obs, reward_now, terminated, truncated, _ = env.last()
        assert terminated and not truncated and not obs["action_mask"].any()
        last_totals[agent] += reward_now
        env.step(None)
    expect_refused(env, lambda: env.step(None), IllegalActionError)
    expect_refused(env, lambda: env.step(0), IllegalActionError)
    expect_refused(env, env.last, RuntimeError)

    want = expected_totals(raw, start_scores, reward)
    for agent in raw.possible_agents:
        assert step_totals[agent] == pytest.approx(want[agent], abs=1e-9), (agent, step_totals, want)
        assert last_totals[agent] == pytest.approx(want[agent], abs=1e-9), (agent, last_totals, want)
    return steps


ENVS = {}  # one env per setting: the numba kernels compile once, and reusing an env tests its resets


def get_env(backend, num_players, episode, auto_forced, reward, target):
    key = (backend, num_players, episode, auto_forced, reward, target)
    if key not in ENVS:
        ENVS[key] = allfives_env.env(num_players=num_players, backend=backend, episode=episode,
                                     auto_forced=auto_forced, reward=reward, target=target)
    return ENVS[key]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    backend=st.sampled_from(["numba", "python"]),
    num_players=st.sampled_from([2, 3, 4]),
    episode=st.sampled_from(["game", "hand"]),
    auto_forced=st.booleans(),
    reward=st.sampled_from(["points", "zero_sum", "win"]),
    target=st.sampled_from([40, 100, None]),  # None: the R3 target
    seed=st.integers(0, 2**32 - 1),
    start=st.lists(st.integers(0, 40), min_size=4, max_size=4),
    given_scores=st.booleans(),
    ops=st.lists(st.tuples(st.integers(0, 60), st.sampled_from(LIVE_OPS), st.integers(0, 1000)), max_size=10),
    episodes=st.integers(1, 2),
)
def test_random_call_sequences_keep_the_env_consistent(backend, num_players, episode, auto_forced, reward, target,
                                                       seed, start, given_scores, ops, episodes):
    fresh = allfives_env.env(num_players=num_players, backend=backend, target=target)
    expect_refused_before_reset(fresh)

    env = get_env(backend, num_players, episode, auto_forced, reward, target)
    sides, points_to_win = env.unwrapped.config.num_sides, env.unwrapped.config.target_points
    options = None
    if given_scores:  # a game already under way: scores below the target, in whole fives
        options = {"scores": [min(5 * s, points_to_win - 5) for s in start[:sides]]}
    env.reset(seed=seed, options=options)
    by_step = {}
    for step, op, pick in ops:
        by_step.setdefault(step, []).append((op, pick))
    rng = np.random.default_rng(seed)
    for episode_number in range(episodes):
        start_scores = env.unwrapped.core.scores
        if options:
            assert list(start_scores) == [float(s) for s in options["scores"]]
        play_episode(env, rng, by_step if episode_number == 0 else {}, start_scores, reward, points_to_win)
        env.reset(options=options)  # the next episode goes on from the seeded stream


def expect_refused_before_reset(env):
    with pytest.raises(ResetNeededError, match=r"before reset\(\)"):
        env.step(0)
    with pytest.raises(ResetNeededError):
        env.unwrapped.step(0)
    with pytest.raises(RuntimeError):
        env.unwrapped.last()
    with pytest.raises((AttributeError, AssertionError)):  # PettingZoo's wrapper guards
        env.last()
