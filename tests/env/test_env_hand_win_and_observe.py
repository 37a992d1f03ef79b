"""PettingZoo API edges of the AEC env: the "win" reward of a hand episode ranks the sides by the points
gained in that hand, not by the game's running totals (R25 applies only to a finished game), and
``observe()`` hands out a mask the env does not change afterwards."""

import numpy as np
import pytest

import allfives_env


def _play_hand(env, seed, start_scores):
    """One hand episode from ``start_scores``, first legal action each turn; (rewards at the end, gained)."""
    env.reset(seed=seed, options={"scores": start_scores})
    finals = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            finals[agent] = reward
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    gained = [s - h for s, h in zip(env.unwrapped.core.scores, start_scores)]
    return finals, gained


@pytest.mark.parametrize("backend", ["numba", "python"])
def test_hand_episode_win_reward_ranks_the_points_gained_this_hand(backend):
    env = allfives_env.env(num_players=2, episode="hand", reward="win", backend=backend)
    start = [200.0, 0.0]  # side 0 far ahead on the sheet (target 250)
    behind_won = False
    for seed in range(40):
        finals, gained = _play_hand(env, seed, start)
        if env.unwrapped.core.game_over:
            continue  # a finished game is ranked by R25 instead
        if gained[0] == gained[1]:
            expect = [0.0, 0.0]
        else:
            best = int(np.argmax(gained))
            expect = [1.0 if side == best else -1.0 for side in range(2)]
        assert [finals["player_0"], finals["player_1"]] == expect, (seed, gained)
        behind_won |= gained[1] > gained[0]
        if behind_won:
            break
    assert behind_won, "no hand where the side behind gained more"


@pytest.mark.parametrize("backend", ["numba", "python"])
def test_observed_mask_is_a_snapshot_not_the_envs_live_mask(backend):
    env = allfives_env.env(num_players=2, backend=backend)
    env.reset(seed=4)
    mover = env.agent_selection
    seen = env.observe(mover)["action_mask"]
    before = seen.copy()
    assert before.any()
    env.step(int(np.flatnonzero(before)[0]))
    assert np.array_equal(seen, before)  # the step rewrote the env's masks, not what was handed out
    assert env.agent_selection != mover  # a lead passes the turn: the mover's live mask is now all zeros
    assert not env.observe(mover)["action_mask"].any()
