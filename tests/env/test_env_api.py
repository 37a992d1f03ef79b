"""The AEC environment against PettingZoo's own conformance tests and our contract."""

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

import allfives_env
from allfives_env.env.aec import IllegalActionError
from allfives_env.rules import DRAW, NUM_ACTIONS, PASS


@pytest.mark.parametrize("backend", ["numba", "python"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_api_test(num_players, backend):
    api_test(allfives_env.env(num_players=num_players, backend=backend), num_cycles=1500, verbose_progress=False)


@pytest.mark.parametrize("options", [
    {"episode": "hand"}, {"auto_forced": True}, {"encoder": "history"}, {"reward": "zero_sum"},
    {"reward": "win", "target": 40}, {"hand_scoring": "penalty", "divisor": 3, "hand_size": "five_each"},
])
def test_pettingzoo_api_test_with_options(options):
    api_test(allfives_env.env(num_players=3, **options), num_cycles=500, verbose_progress=False)


@pytest.mark.parametrize("backend", ["numba", "python"])
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_pettingzoo_seed_test(num_players, backend):
    seed_test(lambda: allfives_env.env(num_players=num_players, backend=backend), num_cycles=500)


def play_episodes(env, episodes, policy_seed, first_seed=None):
    """Trajectory of (agent, action, reward, observation sum) over several episodes
    after one seeded reset (the later resets are unseeded)."""
    chooser = np.random.default_rng(policy_seed)
    trajectory = []
    for episode in range(episodes):
        env.reset(seed=first_seed if episode == 0 else None)
        for agent in env.agent_iter():
            obs, reward, term, trunc, info = env.last()
            action = None
            if not (term or trunc):
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[chooser.integers(len(legal))])
            trajectory.append((agent, action, reward, float(obs["observation"].sum()), info["scores"]))
            env.step(action)
    return trajectory


def test_one_seeded_reset_fixes_every_later_episode():
    """reset(seed) once: every later deal and lot drawn is the same in a second env."""
    first = play_episodes(allfives_env.env(num_players=3), 12, policy_seed=7, first_seed=99)
    second = play_episodes(allfives_env.env(num_players=3), 12, policy_seed=7, first_seed=99)
    other = play_episodes(allfives_env.env(num_players=3), 12, policy_seed=7, first_seed=100)
    assert first == second
    assert first != other


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_mask_is_the_engine_legal_set_and_zero_for_others(num_players):
    env = allfives_env.env(num_players=num_players)
    env.reset(seed=num_players)
    raw = env.unwrapped
    chooser = np.random.default_rng(0)
    for _ in range(2000):
        agent = env.agent_selection
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.reset()
            continue
        expected = np.zeros(NUM_ACTIONS, np.int8)
        expected[raw.game.legal_actions()] = 1
        assert obs["action_mask"].dtype == np.int8
        assert np.array_equal(obs["action_mask"], expected)
        assert np.array_equal(info["action_mask"], expected)
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
                assert not env.infos[other]["action_mask"].any()
        # R12/R13: draw only when nothing fits, pass only with an empty boneyard
        if expected[DRAW]:
            assert expected.sum() == 1 and raw.game.boneyard_left > 0
        if expected[PASS]:
            assert expected.sum() == 1 and raw.game.boneyard_left == 0
        legal = np.flatnonzero(expected)
        env.step(int(legal[chooser.integers(len(legal))]))


@pytest.mark.parametrize("backend", ["numba", "python"])
def test_info_masks_are_copies_kept_masks_never_change(backend):
    """A mask kept from ``infos`` (a replay buffer's) stays what it was, over whole games."""
    env = allfives_env.env(num_players=3, backend=backend)
    env.reset(seed=5)
    kept = []
    for _ in range(300):
        obs, _, term, trunc, info = env.last()
        if term or trunc:
            env.reset()
            continue
        kept.append((info["action_mask"], info["action_mask"].copy()))
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[len(kept) % len(legal)]))
    assert all(np.array_equal(mask, when_kept) for mask, when_kept in kept)


def test_an_edited_info_mask_does_not_make_a_move_legal():
    """R13: a pass on the lead stays illegal when the caller sets every entry of its info mask."""
    env = allfives_env.env(num_players=2)
    env.reset(seed=0)
    agent = env.agent_selection
    env.last()[4]["action_mask"][:] = 1
    for other in env.agents:
        if other != agent:
            with pytest.raises(ValueError, match="read-only"):
                env.infos[other]["action_mask"][:] = 1
    with pytest.raises(IllegalActionError, match="not legal"):
        env.step(PASS)
    assert env.agent_selection == agent and not env.observe(agent)["action_mask"][PASS]


def test_state_holds_every_hand_and_the_boneyard_order():
    env = allfives_env.env(num_players=2)
    env.reset(seed=3)
    game = env.unwrapped.game
    state = env.state()
    assert state.shape == env.unwrapped.state_space.shape
    for seat in range(2):
        hand = np.flatnonzero(state[seat * 28:(seat + 1) * 28])
        assert set(hand) == {t for t in range(28) if game.hands[seat] >> t & 1}
    boneyard = state[56:84]
    order = [int(t) for t in np.argsort(-boneyard)[: game.boneyard_left]]
    assert order == game.boneyard[game.bone_pos:]


def test_render_ansi_and_human(capsys):
    env = allfives_env.env(num_players=4, render_mode="ansi")
    env.reset(seed=5)
    for _ in range(6):
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
    text = env.render()
    game = env.unwrapped.game
    assert f"count {game.count}" in text
    assert "W(" in text and "E" in text and "Scores:" in text
    assert f"{env.agent_selection} holds:" in text
    human = allfives_env.env(num_players=2, render_mode="human")
    human.reset(seed=1)
    obs, *_ = human.last()
    human.step(int(np.flatnonzero(obs["action_mask"])[0]))
    assert "Hand 1" in capsys.readouterr().out


def test_state_ranks_the_boneyard_from_1_down_to_its_last_tile():
    """state(): the boneyard's next tile 1, later ones falling evenly, the last at 1/len (towards 0)."""
    env = allfives_env.env(num_players=2)
    env.reset(seed=3)
    game = env.unwrapped.game
    remaining = game.boneyard[game.bone_pos:]
    boneyard = env.state()[56:84]
    k = len(remaining)
    assert [boneyard[t] for t in remaining] == pytest.approx([1.0 - r / k for r in range(k)])
    assert boneyard[remaining[-1]] == pytest.approx(1.0 / k)


@pytest.mark.parametrize("copy_env", ["deepcopy", "pickle"])
def test_a_copied_env_hands_out_masks_as_the_original(copy_env):
    """A copy turned the shared read-only zero mask into one writeable array shared by every seat not to move."""
    import copy
    import pickle

    env = allfives_env.raw_env(num_players=4)
    env.reset(seed=3)
    for _ in range(5):
        env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    twin = copy.deepcopy(env) if copy_env == "deepcopy" else pickle.loads(pickle.dumps(env))
    mover = twin.agent_selection
    for agent in twin.agents:
        np.testing.assert_array_equal(twin.infos[agent]["action_mask"], twin.observe(agent)["action_mask"])
        if agent != mover:
            with pytest.raises(ValueError, match="read-only"):
                twin.infos[agent]["action_mask"][:] = 1
    kept = twin.infos[mover]["action_mask"]
    when_kept = kept.copy()
    twin.step(int(np.flatnonzero(kept)[0]))
    np.testing.assert_array_equal(kept, when_kept)
    np.testing.assert_array_equal(twin.infos[twin.agent_selection]["action_mask"],
                                  twin.observe(twin.agent_selection)["action_mask"])
