"""Property test: random learner games on the Gymnasium vector env (``AllFivesVectorEnv``), legal and
penalized illegal actions mixed with refused calls.

2/3/4 players, one seat or (4 players) a partnership, a fixed or random learner seat, one batched
baseline at every other seat, every reward mode, whole games. Checked at every step:

* the learner always has a legal action, and ``infos["action_mask"]`` is ``action_masks()``;
* a penalized action pays ``illegal_reward`` and steps nothing: that game's observation and mask stay;
* every episode's return, penalties left out, is what its score sheet says for the learner's side:
  ``points`` its final score (a game starts at 0), ``zero_sum`` that minus the mean of the other sides'
  scores, ``win`` +1 if its side has the highest final score (R25; 0 if tied), else -1;
* a refused call (a wrong shape or dtype, an action outside ``Discrete(114)``) changes no game.
"""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfives_env.env.rewards import ranked_winners, side_outcomes
from allfives_env.integrations.gym_vector import AllFivesVectorEnv

PENALTY = -7.0


def refused_call(env, actions, rng):
    """One malformed ``step`` that the env must refuse."""
    kind = rng.integers(3)
    if kind == 0:
        env.step(actions[:-1] if len(actions) > 1 else np.append(actions, actions))
    elif kind == 1:
        env.step(actions.astype(np.float32))
    else:
        bad = actions.copy()
        bad[rng.integers(len(bad))] = rng.choice([-1, 114, 10**9])
        env.step(bad)


def games_state(env):
    games = env.unwrapped.games
    state = games.venv.state_dict()
    return state, games.seat.copy(), games._pending.copy()


def same_games(a, b) -> bool:
    (sa, seat_a, pend_a), (sb, seat_b, pend_b) = a, b
    arrays = all(np.array_equal(sa[part][k], sb[part][k]) for part in ("games", "out") for k in sa[part])
    return arrays and np.array_equal(seat_a, seat_b) and np.array_equal(pend_a, pend_b)


def expected_return(reward, scores, side):
    """The learner side's return over a whole game, from the final scores alone (a game starts at 0)."""
    if reward == "points":
        return scores[side]
    if reward == "zero_sum":
        return scores[side] - (scores.sum() - scores[side]) / (len(scores) - 1)
    return side_outcomes(ranked_winners(list(scores)), len(scores))[side]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_envs=st.integers(1, 3),
    setting=st.sampled_from([(2, "seat"), (3, "seat"), (4, "seat"), (4, "side")]),
    learner=st.sampled_from(["random", 0, 1]),
    opponents=st.sampled_from(["random", "greedy", "heuristic"]),
    reward=st.sampled_from(["points", "zero_sum", "win"]),
    target=st.sampled_from([60, 100]),
    illegal_share=st.sampled_from([0.0, 0.25]),
    refused_share=st.sampled_from([0.0, 0.1]),
    seed=st.integers(0, 2**32 - 1),
)
def test_learner_episodes_pay_their_score_sheet_through_penalties_and_refused_calls(
        num_envs, setting, learner, opponents, reward, target, illegal_share, refused_share, seed):
    num_players, control = setting
    env = AllFivesVectorEnv(num_envs, num_players=num_players, learner=learner, opponents=opponents,
                            control=control, reward=reward, target=target, illegal_reward=PENALTY)
    side_of = env.games.venv.config.side_of
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    seats = infos["seat"].copy()
    returns = np.zeros(num_envs)
    ended = 0
    for _ in range(120):
        masks = env.action_masks()
        assert masks.any(axis=1).all() and np.array_equal(masks, infos["action_mask"])
        actions = np.array([rng.choice(np.flatnonzero(row)) for row in masks], np.int64)
        illegal = rng.random(num_envs) < illegal_share
        for b in np.flatnonzero(illegal):
            actions[b] = rng.choice(np.flatnonzero(~masks[b]))
        if rng.random() < refused_share:
            before = games_state(env)
            with pytest.raises((ValueError, TypeError)):
                refused_call(env, actions, rng)
            assert same_games(before, games_state(env)), "a refused call changed the games"
        new_obs, rewards, terminated, truncated, infos = env.step(actions)
        assert not truncated.any()
        np.testing.assert_array_equal(infos["illegal_action"], illegal)
        for b in np.flatnonzero(illegal):  # nothing stepped: the same decision again
            assert not terminated[b]
            np.testing.assert_array_equal(new_obs[b], obs[b])
            np.testing.assert_array_equal(env.action_masks()[b], masks[b])
        returns += rewards - np.where(illegal, PENALTY, 0.0)
        for b in np.flatnonzero(terminated):
            final = infos["final_info"]
            side = side_of(int(seats[b]))
            expected = expected_return(reward, final["scores"][b], side)
            assert final["outcome"][b] == expected_return("win", final["scores"][b], side)  # in every mode
            assert returns[b] == pytest.approx(expected, abs=1e-6), (b, reward, final["scores"][b], side)
            returns[b], seats[b] = 0.0, infos["seat"][b]
            ended += 1
        if learner != "random":
            assert (infos["seat"] == learner).all()
        obs = new_obs
    assert ended > 0  # whole games to 60 or 100 points end within 120 learner decisions
