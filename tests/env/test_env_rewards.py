"""Rewards reach the right agents and add up to the score sheet."""

import numpy as np
import pytest

import allfives_env
from allfives_env.env.rewards import ranked_winners, side_outcomes, side_rewards
from allfives_env.rules import RulesConfig


def run_collecting_rewards(env, seed, episodes=1):
    """Play random legal games; return per-agent reward totals as seen through
    last() (plus the final dead step) and the final scores of each episode."""
    chooser = np.random.default_rng(seed)
    totals, finals = {a: 0.0 for a in env.possible_agents}, []
    for episode in range(episodes):
        env.reset(seed=seed if episode == 0 else None)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            totals[agent] += reward
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[chooser.integers(len(legal))]))
        finals.append(env.unwrapped.game.scores[:])
    return totals, finals


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("rules", [{}, {"hand_scoring": "penalty"}, {"divisor": 3, "hand_scoring": "bonus_net"}])
def test_points_reward_sums_to_the_score_sheet(num_players, rules):
    """reward='points': every agent's rewards through last() sum to its side's score
    (partners both get their side's points, also when scored on another seat's turn)."""
    for seed in range(4):
        env = allfives_env.env(num_players=num_players, **rules)
        totals, (scores,) = run_collecting_rewards(env, seed)
        config = RulesConfig(num_players=num_players, **rules)
        for seat, agent in enumerate(env.possible_agents):
            assert totals[agent] == pytest.approx(scores[config.side_of(seat)], abs=1e-9)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_zero_sum_reward(num_players):
    """reward='zero_sum': side points minus the mean of the other sides' points; sums to zero."""
    env = allfives_env.env(num_players=num_players, reward="zero_sum")
    totals, (scores,) = run_collecting_rewards(env, seed=11)
    config = RulesConfig(num_players=num_players)
    sides = config.num_sides
    for seat, agent in enumerate(env.possible_agents):
        side = config.side_of(seat)
        others = (sum(scores) - scores[side]) / (sides - 1)
        assert totals[agent] == pytest.approx(scores[side] - others)
    per_side = {config.side_of(s): totals[a] for s, a in enumerate(env.possible_agents)}
    assert sum(per_side.values()) == pytest.approx(0.0)


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_win_reward(num_players):
    """reward='win': +1 to the winning side, -1 to the others, only at the end."""
    env = allfives_env.env(num_players=num_players, reward="win")
    chooser = np.random.default_rng(3)
    env.reset(seed=3)
    got = {}
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term:
            got[agent] = reward
            env.step(None)
            continue
        assert reward == 0.0
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[chooser.integers(len(legal))]))
    game = env.unwrapped.game
    config = game.config
    for seat, agent in enumerate(env.possible_agents):
        expected = 1.0 if config.side_of(seat) in game.winners else -1.0
        if len(game.winners) > 1:
            expected = 0.0 if config.side_of(seat) in game.winners else -1.0
        assert got[agent] == expected


def test_partner_reward_arrives_through_last_on_its_next_turn():
    """4 players: seat 0 scores 5 with its lead; seat 2 (partner) is paid in that
    step and last() hands it over when seat 2 next acts; seat 1/3 get nothing."""
    env = allfives_env.env(num_players=4)
    hands = [[5, 0, 1, 2, 3], [7, 8, 9, 10, 11], [12, 13, 14, 15, 16], [17, 18, 19, 20, 21]]
    # tile 5 is [0|5]: lead count 0 + 5 = 5 (R14), scores 5 for side 0 (R15)
    boneyard = [4, 6, 22, 23, 24, 25, 26, 27]
    env.reset(seed=0, options={"hands": hands, "boneyard": boneyard, "leader": 0})
    env.step(4 * 5)
    assert env.rewards == {"player_0": 5.0, "player_1": 0.0, "player_2": 5.0, "player_3": 0.0}
    assert env.agent_selection == "player_1"
    assert env.last()[1] == 0.0
    expected_for_partner = 5.0
    while env.agent_selection != "player_2":  # seat 1 plays (or draws) before seat 2's turn
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        expected_for_partner += env.unwrapped.game.step_gain[0]  # the engine's record (re-read each step)
    assert env.last()[1] == expected_for_partner


def test_auto_forced_never_presents_draws_or_passes_and_keeps_scores():
    """auto_forced=True: the same seeded game as without it, minus the forced decisions."""
    def final_scores(auto):
        env = allfives_env.env(num_players=2, auto_forced=auto)
        env.reset(seed=21)
        decisions, forced_seen = 0, 0
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            if term:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if legal[0] >= 112:
                forced_seen += 1
            else:
                decisions += 1
            env.step(int(legal[0]))  # deterministic choice: same plays in both runs
        return env.unwrapped.game.scores, decisions, forced_seen

    plain, plain_decisions, plain_forced = final_scores(False)
    auto, auto_decisions, auto_forced = final_scores(True)
    assert plain == auto
    assert plain_decisions == auto_decisions
    assert plain_forced > 0 and auto_forced == 0


@pytest.mark.parametrize("reward", ["points", "zero_sum", "win"])
@pytest.mark.parametrize("backend", ["numba", "python"])
def test_info_scores_follow_the_score_sheet_in_every_reward_mode(reward, backend):
    """infos[agent]["scores"] is the score sheet after every step, also with reward="win" (which pays
    nothing until the end, so a scoring step must still update the scores)."""
    env = allfives_env.env(num_players=4, reward=reward, episode="hand", backend=backend)
    rng = np.random.default_rng(5)
    for seed in range(6):
        env.reset(seed=seed)
        for agent in env.agent_iter():
            obs, _, terminated, truncated, info = env.last()
            assert tuple(info["scores"]) == tuple(env.unwrapped.core.scores)
            env.step(None if terminated or truncated else int(rng.choice(np.flatnonzero(obs["action_mask"]))))


# ------------------------------------------------- the shared reward functions (env/rewards.py)
def test_zero_sum_rewards_sum_to_zero_and_points_pass_through():
    assert side_rewards([10, 0, 5], "points") == [10, 0, 5]
    assert side_rewards([10, 0, 5], "zero_sum") == [7.5, -7.5, 0.0]
    assert side_rewards([15, 5], "zero_sum") == [10, -10]
    with pytest.raises(ValueError, match="'win' has no per-step rewards; allowed: 'points', 'zero_sum'"):
        side_rewards([1, 2], "win")


def test_outcomes_rank_the_sides_and_a_tie_is_a_draw_between_its_winners():
    """R25: a sole winner +1; tied winners 0 each; the rest -1 (3 players: two tied, one behind)."""
    assert ranked_winners([20, 35, 35]) == {1, 2}
    assert side_outcomes(ranked_winners([20, 35, 35]), 3) == [-1.0, 0.0, 0.0]
    assert side_outcomes(ranked_winners([40, 35]), 2) == [1.0, -1.0]
    assert side_outcomes({0, 1}, 2) == [0.0, 0.0]
