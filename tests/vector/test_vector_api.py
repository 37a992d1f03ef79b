"""The batched env's contract: auto-reset, rewards, determinism, options, bad input."""

import re

import numpy as np
import pytest

from allfives_env.env.encoders import default_layout
from allfives_env.rules.actions import DRAW, PASS
from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions
from allfives_env.vector.batched import MAX_NUM_ENVS


def play(venv, steps, seed=0, out=None):
    """Random legal steps; yields each output."""
    pick = make_rng_state(seed, venv.num_envs)
    out = out if out is not None else venv.reset(seed=seed)
    for _ in range(steps):
        out = venv.step(random_legal_actions(out.mask, pick))
        yield out


def test_reset_gives_a_valid_deal_and_a_lead():
    """R4 deal sizes, the lead (R6) for the seat to move, scores zero."""
    for n, size in ((2, 9), (3, 7), (4, 5)):
        venv = VectorAllFives(64, num_players=n)
        out = venv.reset(seed=3)
        views = venv.views(out.obs)
        assert out.obs.shape == (64, default_layout(n).size) and out.mask.shape == (64, 114)
        np.testing.assert_array_equal(views["hand"].sum(axis=1), size)
        np.testing.assert_allclose(views["hand_sizes"], size / 10)
        np.testing.assert_array_equal(views["is_lead"][:, 0], 1)
        np.testing.assert_array_equal(views["boneyard"][:, 0], 1)
        np.testing.assert_array_equal(out.scores, 0)
        assert out.new_hand.all() and not out.terminated.any()
        # a lead is any own tile at W (R6)
        lead_mask = np.zeros((64, 114), np.int8)
        lead_mask[:, 0:112:4] = views["hand"]
        np.testing.assert_array_equal(out.mask, lead_mask)


def test_first_leader_is_uniform_R5():
    venv = VectorAllFives(6000, num_players=3)
    counts = np.bincount(venv.reset(seed=11).to_move, minlength=3)
    assert all(1800 < c < 2200 for c in counts), counts


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_points_rewards_add_up_to_the_final_scores(num_players):
    """reward="points": a seat's rewards over an episode sum to its side's final score;
    a terminated game restarts at once (new lead, zero scores)."""
    venv = VectorAllFives(64, num_players=num_players, target=60)
    sides = venv.num_sides
    side_of = [s % 2 if num_players == 4 else s for s in range(num_players)]
    total = np.zeros((64, num_players))
    ended = 0
    for out in play(venv, 600, seed=num_players):
        total += out.rewards
        for b in np.flatnonzero(out.terminated):
            ended += 1
            for seat in range(num_players):
                assert total[b, seat] == out.final_scores[b, side_of[seat]]
            assert out.final_scores[b].max() >= 60  # R3: the game ends at the target
            assert out.new_hand[b] and out.scores[b].tolist() == [0.0] * sides
            assert venv.views(out.obs[b])["is_lead"][0] == 1
            total[b] = 0
        live = ~out.terminated
        for seat in range(num_players):
            np.testing.assert_array_equal(total[live, seat], out.scores[live, side_of[seat]])
    assert ended > 20


def test_win_rewards_only_at_the_end():
    venv = VectorAllFives(64, num_players=4, reward="win", episode="hand")
    ended = 0
    for out in play(venv, 300, seed=5):
        done = out.terminated
        assert (out.rewards[~done] == 0).all()
        if done.any():
            ended += done.sum()
            rewards = out.rewards[done]
            assert set(np.unique(rewards)) <= {-1.0, 0.0, 1.0}
            # partners share the result (R2), the other side gets the opposite or both draw
            np.testing.assert_array_equal(rewards[:, 0], rewards[:, 2])
            np.testing.assert_array_equal(rewards[:, 0], -rewards[:, 1])
    assert ended > 50


def test_zero_sum_rewards_sum_to_zero_over_sides():
    venv = VectorAllFives(32, num_players=3, reward="zero_sum")
    for out in play(venv, 200, seed=2):
        np.testing.assert_allclose(out.rewards.sum(axis=1), 0, atol=1e-6)


def test_auto_forced_never_asks_for_a_single_draw_or_pass():
    venv = VectorAllFives(64, num_players=2, auto_forced=True, hand_size="five_each")
    for out in play(venv, 300, seed=4):
        single = out.mask.sum(axis=1) == 1
        assert not (single & (out.mask[:, DRAW:].sum(axis=1) == 1)).any()


def test_same_seed_same_actions_same_trajectories():
    a = VectorAllFives(48, num_players=3, hand_scoring="bonus_net")
    b = VectorAllFives(48, num_players=3, hand_scoring="bonus_net")
    for out_a, out_b in zip(play(a, 150, seed=9), play(b, 150, seed=9)):
        for name in ("to_move", "obs", "mask", "rewards", "terminated", "scores", "new_hand"):
            np.testing.assert_array_equal(getattr(out_a, name), getattr(out_b, name))
    c = VectorAllFives(48, num_players=3).reset(seed=10)
    d = VectorAllFives(48, num_players=3).reset(seed=9)
    assert not np.array_equal(c.obs, d.obs)


def test_games_do_not_depend_on_the_batch_size():
    """Game b's stream depends on (seed, b) only: the first 16 games of B=16 and B=40 agree."""
    small, large = VectorAllFives(16), VectorAllFives(40)
    np.testing.assert_array_equal(small.reset(seed=1).obs, large.reset(seed=1).obs[:16])


def test_parallel_matches_serial():
    serial = VectorAllFives(64, num_players=4, parallel=False)
    threaded = VectorAllFives(64, num_players=4, parallel=True)
    for out_s, out_t in zip(play(serial, 200, seed=6), play(threaded, 200, seed=6)):
        np.testing.assert_array_equal(out_s.obs, out_t.obs)
        np.testing.assert_array_equal(out_s.rewards, out_t.rewards)
        np.testing.assert_array_equal(out_s.final_scores[out_s.terminated], out_t.final_scores[out_t.terminated])


def test_outputs_are_buffers_copy_keeps_them():
    venv = VectorAllFives(8)
    out = venv.reset(seed=0)
    kept = out.copy()
    out2 = venv.step(random_legal_actions(out.mask, make_rng_state(0, 8)))
    assert out2.obs is out.obs  # the same buffers, overwritten
    assert not np.array_equal(kept.obs, out2.obs)


def test_a_draw_or_pass_outside_the_mask_is_refused_and_changes_nothing():
    """R12: no draw or pass while a tile fits; R13: a draw only while the boneyard has tiles, a pass only
    when it is empty. Each case is met in random games and each refusal leaves the games as they were."""
    venv = VectorAllFives(8, num_players=2)
    out = venv.reset(seed=0)
    rng = make_rng_state(1, 8)
    met = set()
    for _ in range(300):
        for b in range(8):
            legal = set(venv.legal_actions(b))
            for refused in {DRAW, PASS} - legal:
                actions = np.full(8, -1, np.int64)
                actions[b] = refused
                st, obs = venv._st.copy(), out.obs.copy()
                with pytest.raises(ValueError, match=rf"game {b}: action {refused} .*not legal"):
                    venv.step(actions)
                np.testing.assert_array_equal(venv._st, st)
                np.testing.assert_array_equal(venv.current().obs, obs)
                met.add((refused, DRAW in legal, PASS in legal))
        out = venv.step(random_legal_actions(out.mask, rng))
    assert {(PASS, True, False), (DRAW, False, True), (DRAW, False, False), (PASS, False, False)} <= met


def test_bad_actions_name_the_game_and_change_nothing():
    venv = VectorAllFives(6, num_players=2)
    out = venv.reset(seed=0)
    before = out.copy()
    actions = np.array([venv.legal_actions(b)[0] for b in range(6)])
    illegal = int(np.flatnonzero(out.mask[4] == 0)[0])
    actions[4] = illegal
    with pytest.raises(ValueError, match=rf"game 4: action {illegal} .*not legal"):
        venv.step(actions)
    for bad in (-2, 114, 1000):  # -1 is SKIP; int64 ids are checked by the kernel, worded as any other dtype's
        actions[4] = bad
        with pytest.raises(ValueError, match=rf"game 4: action {bad} is out of range; allowed: action ids 0\.\.113"):
            venv.step(actions)
    with pytest.raises(ValueError, match="shape"):
        venv.step(actions[:5])
    with pytest.raises(ValueError, match="shape"):
        venv.step(actions.reshape(2, 3))
    with pytest.raises(TypeError, match="dtype"):
        venv.step(actions.astype(np.float64))
    with pytest.raises(TypeError, match="dtype"):
        venv.step(np.ones(6, bool))
    current = venv.current()
    for name in ("obs", "mask", "to_move", "scores"):
        np.testing.assert_array_equal(getattr(current, name), getattr(before, name))
    actions[4] = venv.legal_actions(4)[0]
    venv.step(actions.astype(np.int32))  # any integer dtype is fine


@pytest.mark.parametrize("dtype, bad", [(np.uint64, 2 ** 64 - 1), (np.uint64, 2 ** 63), (np.uint8, 200),
                                        (np.int32, -2), (np.int16, 114)])
def test_an_out_of_range_action_of_another_dtype_is_refused_before_its_cast(dtype, bad):
    """uint64 2**64-1 would cast to -1, SKIP: the game would silently not move."""
    venv = VectorAllFives(4, num_players=2)
    venv.reset(seed=0)
    before = venv.state_dict()
    actions = np.array([venv.legal_actions(b)[0] for b in range(4)], dtype)
    actions[3] = bad
    with pytest.raises(ValueError, match=rf"game 3: action {bad} is out of range; allowed: action ids 0\.\.113"):
        venv.step(actions)
    after = venv.state_dict()
    for name, array in before["games"].items():
        np.testing.assert_array_equal(after["games"][name], array)


def test_reads_before_reset_and_bad_game_indices_are_refused():
    venv = VectorAllFives(3)
    for call in (venv.current, lambda: venv.legal_actions(0)):
        with pytest.raises(RuntimeError, match=r"call reset\(\) before"):
            call()
    venv.reset(seed=0)
    for index in (3, -1, True, 1.0, "0"):
        with pytest.raises(ValueError, match=r"game index .* is not allowed; allowed: integers 0\.\.2"):
            venv.legal_actions(index)
    assert venv.legal_actions(np.int64(2)) == [int(a) for a in np.flatnonzero(venv.current().mask[2])]


def test_options_are_checked():
    with pytest.raises(ValueError, match=r"unknown option.*'colour'.*allowed.*hand_scoring"):
        VectorAllFives(4, colour="red")
    with pytest.raises(ValueError, match="episode"):
        VectorAllFives(4, episode="match")
    with pytest.raises(ValueError, match="reward"):
        VectorAllFives(4, reward="elo")
    with pytest.raises(ValueError, match="num_players"):
        VectorAllFives(4, num_players=5)
    with pytest.raises(ValueError, match="hand_scoring"):
        VectorAllFives(4, hand_scoring="double")
    with pytest.raises(ValueError, match="encoder"):
        VectorAllFives(4, encoder="history")
    refused = r"num_envs=.* is not allowed; allowed: a whole number from 1 to 1,000,000"
    for bad in (0, 2.0, True, "4", MAX_NUM_ENVS + 1, 10**12):  # 10**12: a MemoryError before the cap
        with pytest.raises(ValueError, match=refused):
            VectorAllFives(bad)
    with pytest.raises(RuntimeError, match="reset"):
        VectorAllFives(2).step(np.zeros(2, np.int64))


def test_set_position_checks_the_deal():
    venv = VectorAllFives(2, num_players=2)
    venv.reset(seed=0)
    hands = [list(range(9)), list(range(9, 18))]
    with pytest.raises(ValueError, match="28 tiles"):
        venv.set_position([0], [hands], [list(range(18, 27))], [0])
    with pytest.raises(ValueError, match="not a seat"):
        venv.set_position([0], [hands], [list(range(18, 28))], [2])
    with pytest.raises(ValueError, match="already at the target"):
        venv.set_position([0], [hands], [list(range(18, 28))], [0], scores=[[250, 0]])
    before = venv.state_dict()["games"]
    with pytest.raises(ValueError, match=r"^game\(s\) \[1\] given more than once in indices; allowed: each game once"):
        venv.set_position([1, 1], [hands, hands], [list(range(18, 28))] * 2, [0, 1])  # the last won, silently
    for name, array in venv.state_dict()["games"].items():
        np.testing.assert_array_equal(array, before[name])
    out = venv.set_position([1], [hands], [list(range(18, 28))], [1], scores=[[10, 20.5]])
    assert out.to_move[1] == 1 and out.scores[1].tolist() == [10.0, 20.5]
    np.testing.assert_array_equal(venv.views(out.obs[1])["hand"], [0] * 9 + [1] * 9 + [0] * 10)


def test_memory_per_game_is_small():
    """B = 65,536 must fit easily: a few kB per game (docs/environment.md and MAX_NUM_ENVS say 2.6-3.2 kB)."""
    per_game = {}
    for n in (2, 4):
        venv = VectorAllFives(256, num_players=n)
        per_game[n] = venv.memory_bytes() / 256
    assert 2500 < per_game[2] < 2700 and 3100 < per_game[4] < 3300


def test_skip_leaves_a_game_exactly_as_it_was():
    """SKIP (-1) moves only the other games; stepping the skipped game later continues it unchanged."""
    from allfives_env.vector import SKIP

    venv, twin = VectorAllFives(4, num_players=3), VectorAllFives(4, num_players=3)
    out, _ = venv.reset(seed=3), twin.reset(seed=3)
    pick = make_rng_state(1, 4)
    actions = random_legal_actions(out.mask, pick).copy()
    skipped = actions.copy()
    skipped[2] = SKIP
    before = venv.state_dict()["games"]
    out = venv.step(skipped)
    after = venv.state_dict()["games"]
    for name in ("st", "hands", "scores", "rng"):
        np.testing.assert_array_equal(before[name][2], after[name][2])
    assert not out.terminated[2] and not out.new_hand[2] and not out.rewards[2].any()
    # the skipped game then takes the same action as its twin, which was never skipped
    only_2 = np.full(4, SKIP)
    only_2[2] = actions[2]
    venv.step(only_2)
    twin.step(actions)
    np.testing.assert_array_equal(venv.state_dict()["games"]["st"], twin.state_dict()["games"]["st"])


def test_final_viewers_choose_who_sees_the_final_observation():
    venv = VectorAllFives(64, num_players=2, episode="hand")
    twin = VectorAllFives(64, num_players=2, episode="hand")
    out, _ = venv.reset(seed=5), twin.reset(seed=5)
    pick, pick_twin = make_rng_state(2, 64), make_rng_state(2, 64)
    viewers = np.ones(64, np.int64)
    seen = 0
    for _ in range(60):
        out = venv.step(random_legal_actions(out.mask, pick), final_viewers=viewers)
        twin_out = twin.step(random_legal_actions(twin.current().mask, pick_twin))
        done = out.terminated
        assert (out.final_seat[done] == 1).all()
        other = done & (twin_out.final_seat == 0)  # where the default viewer was seat 0, the views differ
        seen += int(other.sum())
        assert all(not np.array_equal(out.final_obs[b], twin_out.final_obs[b]) for b in np.flatnonzero(other))
        same = done & (twin_out.final_seat == 1)
        np.testing.assert_array_equal(out.final_obs[same], twin_out.final_obs[same])
    assert seen > 0
    with pytest.raises(ValueError, match="final_viewers"):
        venv.step(random_legal_actions(out.mask, pick), final_viewers=np.full(64, 2))


@pytest.mark.parametrize("seed", [-1, 1.5, True, "7"])
def test_a_bad_seed_is_refused_by_name_and_the_games_are_kept(seed):
    venv = VectorAllFives(4, num_players=2)
    venv.reset(seed=3)
    before = (venv._st.copy(), venv._rng.copy())
    with pytest.raises(ValueError, match=r"seed=.* is not allowed; allowed: None or a non-negative integer"):
        venv.reset(seed=seed)
    assert np.array_equal(venv._st, before[0]) and np.array_equal(venv._rng, before[1])


def test_a_saved_state_continues_exactly_and_only_under_the_same_rules_and_options():
    options = {"num_players": 2, "hand_size": "five_each", "divisor": 3, "target": 60}
    saved = VectorAllFives(4, **options)
    out = saved.reset(seed=2)
    pick = make_rng_state(3, 4)
    for _ in range(15):
        out = saved.step(random_legal_actions(out.mask, pick))
    state = saved.state_dict()
    twin = VectorAllFives(4, **options)
    twin.load_state_dict(state)
    pick_twin = pick.copy()
    for _ in range(40):
        a, b = saved.step(random_legal_actions(saved.current().mask, pick)), twin.step(
            random_legal_actions(twin.current().mask, pick_twin))
        np.testing.assert_array_equal(a.obs, b.obs)
        np.testing.assert_array_equal(a.scores, b.scores)
    for other in ({**options, "hand_size": "standard", "divisor": 5}, {**options, "reward": "zero_sum"},
                  {**options, "target": 100}):
        env = VectorAllFives(4, **other)
        env.reset(seed=0)
        before = env.state_dict()
        with pytest.raises(ValueError, match=r"^a VectorAllFives state of other rules or options; this env plays "
                                             r"RulesConfig\("):
            env.load_state_dict(state)
        for name, array in before["games"].items():  # nothing changed
            np.testing.assert_array_equal(env.state_dict()["games"][name], array)
    with pytest.raises(ValueError, match="a VectorAllFives state of another shape"):
        VectorAllFives(5, **options).load_state_dict(state)


def test_random_legal_actions_checks_what_the_kernel_trusts():
    """The kernel writes one entry per mask row into the streams and ``out``: arrays that are too
    short were written past their end (the process aborted later); now they are refused in one line."""
    out = VectorAllFives(16, num_players=2).reset(seed=0)
    streams = make_rng_state(3, 16)
    cases = [
        ((out.mask, make_rng_state(3, 1)), "rng_state is shape (1,)"),
        ((out.mask, streams.astype(np.int64)), "dtype int64"),
        ((out.mask, streams, np.empty(2, np.int64)), "out is shape (2,)"),
        ((out.mask, streams, np.empty(16, np.int32)), "dtype int32"),
        ((out.mask[:, :50], streams), "mask is shape (16, 50)"),
        ((out.mask.astype(np.float32), streams), "dtype float32"),
        (([[1] * 114], make_rng_state(3, 1)), "mask is list"),
    ]
    before = streams.copy()
    for args, said in cases:
        with pytest.raises(ValueError, match=re.escape(said)):
            random_legal_actions(*args)
    assert np.array_equal(streams, before)
    with pytest.raises(ValueError, match="num=-1 is not allowed"):
        make_rng_state(0, -1)
    actions = random_legal_actions(out.mask, streams)
    assert all(out.mask[b, a] for b, a in enumerate(actions))


def test_final_viewers_of_minus_one_in_a_narrow_dtype_are_the_default_viewer():
    """``final_viewers``: "(B,) int64 seats, -1 for the default"; an int32 array is read the same (cast).
    Catches (vector/batched.py _check_viewers: ``viewers.min() < -1`` -> ``< 0``)."""
    viewers = np.full(32, -1, np.int64)
    viewers[::2] = 1
    runs = []
    for dtype in (np.int64, np.int32):
        venv = VectorAllFives(32, num_players=2, episode="hand")
        out, pick = venv.reset(seed=4), make_rng_state(1, 32)
        seats, obs = [], []
        for _ in range(60):
            out = venv.step(random_legal_actions(out.mask, pick), final_viewers=viewers.astype(dtype))
            seats.append(np.where(out.terminated, out.final_seat, -9))
            obs.append(out.final_obs[out.terminated].copy())
        runs.append((np.array(seats), np.concatenate(obs)))
    (seats64, obs64), (seats32, obs32) = runs
    np.testing.assert_array_equal(seats32, seats64)
    np.testing.assert_array_equal(obs32, obs64)
    default_ended = seats64[:, viewers < 0]
    assert (default_ended >= 0).sum() > 0  # the default viewers' games ended too


def _position(num_envs=2):
    venv = VectorAllFives(num_envs=num_envs)
    venv.reset(seed=0)
    hands, boneyard = [list(range(9)), list(range(9, 18))], list(range(18, 28))
    return venv, hands, boneyard


@pytest.mark.parametrize("indices, leaders, scores, words", [
    ([0, 1], [1, 7], None, "leader=7 of game 1 is not a seat; allowed 0..1"),  # game 0 was dealt, then refused
    ([0, 1], [1, 0], [[0, 0], [250, 0]], "already at the target"),
    ([0, 5], [1, 0], None, "game index 5 is not allowed; allowed: an integer 0..1"),
    ([0, True], [1, 0], None, "game index True is not allowed"),  # numpy made it game 1
    ([0], [0], [{100: "a", 50: "b"}], "'scores' holds {100: 'a', 50: 'b'}; allowed: a list"),  # its keys were read
    ([0], [0], [{10, 5}], "'scores' holds {"),
    ([0], [0], [7], "'scores' holds 7; allowed: a list"),  # a TypeError
    ([0.9], [0], None, "game index .*0.9.* is not allowed"),  # was game 0
    ([True], [0], None, "game index .*True.* is not allowed"),  # was game 1
    ([0], [None], None, "leader=None of game 0 is not a seat"),  # int()'s own message
    ([0], ["x"], None, "leader='x' of game 0 is not a seat"),
    ([0], [float("inf")], None, "leader=inf of game 0 is not a seat"),  # OverflowError
    ([0], [0], [[1e308, 0]], "score of side 0 is 1e\\+308; scores are finite whole or half points"),  # OverflowError
])
def test_set_position_refuses_a_bad_entry_before_any_game_changes(indices, leaders, scores, words):
    venv, hands, boneyard = _position()
    before = _arrays(venv.state_dict())
    with pytest.raises(ValueError, match=words):
        venv.set_position(indices, [hands] * len(indices), [boneyard] * len(indices), leaders, scores)
    after = _arrays(venv.state_dict())
    assert len(before) == len(after) > 10
    for name, value in before.items():
        np.testing.assert_array_equal(after[name], value, err_msg=name)


def _arrays(state):
    """Every array of a state_dict, by its path."""
    return {f"{part}.{name}": value for part in ("games", "out") for name, value in state[part].items()}


@pytest.mark.parametrize("seed", [True, -1, 1.5, "x"])
def test_make_rng_state_refuses_a_seed_that_is_not_whole_numbers(seed):
    """As every other seed of the package: True read as 1, and numpy's own messages for the rest, before."""
    with pytest.raises(ValueError, match=f"seed={seed!r} is not allowed; allowed: a whole number >= 0"):
        make_rng_state(seed, 2)


@pytest.mark.parametrize("seed", [[True, 1], (1, np.True_), np.array([True, False])])
def test_make_rng_state_refuses_a_boolean_inside_a_list_seed(seed):
    """Catches [True, 1] read as [1, 1] (the same streams) where a boolean alone is refused."""
    with pytest.raises(ValueError, match="is not allowed; allowed: a whole number >= 0, or a list of them"):
        make_rng_state(seed, 2)
    assert (make_rng_state([0, 1], 2) != make_rng_state([1, 1], 2)).any()  # whole numbers still make streams


@pytest.mark.parametrize("where", ["hands", "hand", "boneyard"])
def test_a_deal_given_as_a_generator_is_one_valueerror_and_changes_nothing(where):
    """Catches a generator (no len) taken for a list of tiles and failing later with a TypeError."""
    venv = VectorAllFives(num_envs=2)
    venv.reset(seed=0)
    before = {k: v.copy() for k, v in venv.state_dict()["games"].items()}
    hands, boneyard = [list(range(9)), list(range(9, 18))], list(range(18, 28))
    if where == "hands":
        hands = (hand for hand in hands)
    elif where == "hand":
        hands = [(t for t in hands[0]), hands[1]]
    else:
        boneyard = (t for t in boneyard)
    name = "boneyard" if where == "boneyard" else "hands"
    with pytest.raises(ValueError, match=f"'{name}' holds <generator object .*; allowed: "):
        venv.set_position([0], [hands], [boneyard], [0])
    for key, value in venv.state_dict()["games"].items():
        np.testing.assert_array_equal(value, before[key], err_msg=key)


def test_set_position_refuses_the_game_index_equal_to_num_envs_and_changes_nothing():
    """Catches an off-by-one bound that lets game index B (one past the last game) through."""
    venv = VectorAllFives(num_envs=2)
    venv.reset(seed=0)
    before = {k: v.copy() for k, v in venv.state_dict()["games"].items()}
    hands, boneyard = [list(range(9)), list(range(9, 18))], list(range(18, 28))
    with pytest.raises(ValueError, match=r"game index 2 is not allowed; allowed: an integer 0\.\.1"):
        venv.set_position([0, 2], [hands, hands], [boneyard, boneyard], [0, 0])
    for name, value in venv.state_dict()["games"].items():
        np.testing.assert_array_equal(value, before[name], err_msg=name)
