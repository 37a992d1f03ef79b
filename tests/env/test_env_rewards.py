"""The episode rewards shared by the AEC env and the OpenSpiel game (env/rewards.py)."""

import pytest

from allfives_env.env.rewards import ranked_winners, side_outcomes, side_rewards


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
