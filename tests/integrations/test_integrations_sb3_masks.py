"""SB3's per-env calls on :class:`AllFivesVecEnv`: ``env_method("action_masks")`` is how MaskablePPO reads the
masks, one per env (the sb3_vec module: "one mask per env, as MaskablePPO stacks them"). Each env's entry must
be that game's own legal mask, also for a subset of ``indices``."""

import numpy as np
import pytest

from allfives_env.integrations.sb3_vec import AllFivesVecEnv


def test_env_method_action_masks_gives_each_game_its_own_mask():
    env = AllFivesVecEnv(6, num_players=2)
    env.seed(11)
    env.reset()
    masks = env.action_masks()
    assert len({m.tobytes() for m in masks}) > 1  # different deals: the games' masks differ
    per_env = env.env_method("action_masks")
    assert len(per_env) == 6
    for b in range(6):
        np.testing.assert_array_equal(per_env[b], masks[b])
    some = env.env_method("action_masks", indices=[4, 1])
    np.testing.assert_array_equal(some[0], masks[4])
    np.testing.assert_array_equal(some[1], masks[1])


def test_indices_that_name_no_env_are_refused():
    """Indices in -B..B-1 name envs as list indexing does; the rest were answered for all the same (get_attr's
    value for index 5 of 3 envs)."""
    env = AllFivesVecEnv(3, num_players=2)
    env.reset()
    assert env.get_attr("num_envs", indices=[-1, 2]) == [3, 3]
    np.testing.assert_array_equal(env.env_method("action_masks", indices=-3)[0], env.action_masks()[0])
    for call in (lambda: env.get_attr("num_envs", indices=[5]), lambda: env.env_method("action_masks", indices=[-4]),
                 lambda: env.env_is_wrapped(object, indices=[1.5])):
        with pytest.raises(ValueError, match=r"name no env; allowed: env indices -3\.\.2"):
            call()


def test_set_attr_refuses_indices_that_name_no_env_and_sets_nothing():
    """Catches set_attr ignoring its indices (index 7 of 3 envs set the attribute all the same)."""
    env = AllFivesVecEnv(3, num_players=2)
    env.reset()
    env.set_attr("probe", 1, indices=[0, -3])
    with pytest.raises(ValueError, match=r"indices \[7\] name no env; allowed: env indices -3\.\.2"):
        env.set_attr("probe", 2, indices=[7])
    assert env.get_attr("probe") == [1, 1, 1]


@pytest.mark.parametrize("indices", [[True], [0, False], True])
def test_sb3_indices_refuse_booleans(indices):
    """Catches a boolean index (True read as env 1) taken as an env index."""
    env = AllFivesVecEnv(3, num_players=2)
    env.reset()
    with pytest.raises(ValueError, match=r"indices \[.*(True|False).*\] name no env; allowed: env indices -3\.\.2"):
        env.get_attr("num_envs", indices=indices)
