"""The learner vector envs (integrations.gym_vector, integrations.sb3_vec): Gymnasium/SB3 contracts, the
same episodes as the single-game wrapper on the same deals, and MaskablePPO training on them."""

import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from allfives_env.compiled.state import LEADER, ORDER
from allfives_env.integrations import SingleAgentAllFives
from allfives_env.integrations.gym_vector import AllFivesVectorEnv, LearnerGames
from allfives_env.rules.actions import NUM_ACTIONS
from allfives_env.rules.game import split_order


def lowest_legal(mask):
    """A deterministic learner: the lowest legal action id of each row."""
    return np.argmax(mask, axis=1).astype(np.int64)


def random_legal(mask, rng):
    return np.array([rng.choice(np.flatnonzero(row)) for row in mask], np.int64)


# ---------------------------------------------------------------- the same episodes as the single wrapper
def vector_episodes(num_players, opponents, options, num_envs=12, steps=40, control="seat"):
    """Play ``lowest_legal`` on the vector env; return each finished episode as
    (seat, deal, [(obs, mask, reward), ...], final outcome)."""
    games = LearnerGames(num_envs, num_players, learner="random", opponents=opponents, control=control,
                         episode="hand", **options)
    out = games.reset(seed=11)
    st = games.venv.compiled_state().st

    def start(b):
        return {"seat": int(games.seat[b]), "order": st[b, ORDER:ORDER + 28].astype(int).tolist(),
                "leader": int(st[b, LEADER]), "steps": []}

    running = [start(b) for b in range(num_envs)]
    finished = []
    for _ in range(steps):
        obs, mask = out.obs.copy(), out.mask.copy()
        actions = lowest_legal(mask)
        out, rewards, terminated = games.step(actions)
        for b in range(num_envs):
            running[b]["steps"].append((obs[b], mask[b], float(rewards[b])))
            if terminated[b]:
                running[b]["outcome"] = float(games.final()[2][b])
                running[b]["scores"] = games.final()[1][b].tolist()
                running[b]["final_obs"] = games.final()[0][b].copy()
                finished.append(running[b])
                running[b] = start(b)
    return finished


@pytest.mark.parametrize("num_players,opponents,options,control", [
    (2, "greedy", {"reward": "points"}, "seat"),
    (3, ["heuristic", "greedy"], {"reward": "zero_sum"}, "seat"),
    (4, "greedy", {"reward": "win", "auto_forced": True}, "seat"),
    (4, ["heuristic", "greedy"], {"reward": "zero_sum"}, "side"),
    (2, "ppo:checkpoints/ppo_2p.pt,any_rules=true", {"reward": "zero_sum", "divisor": 3}, "seat"),
])
def test_the_same_learner_episodes_as_the_single_game_wrapper(num_players, opponents, options, control):
    episodes = vector_episodes(num_players, opponents, options, control=control)
    assert len(episodes) >= 6
    for episode in episodes:
        single = SingleAgentAllFives(num_players=num_players, learner=episode["seat"], opponents=opponents,
                                     control=control, obs="flat", episode="hand", **options)
        hands, boneyard = split_order(single.config, episode["order"])
        obs, info = single.reset(seed=0, options={"hands": hands, "boneyard": boneyard,
                                                  "leader": episode["leader"]})
        for k, (v_obs, v_mask, v_reward) in enumerate(episode["steps"]):
            np.testing.assert_array_equal(obs, v_obs, err_msg=f"observation {k}")
            np.testing.assert_array_equal(single.action_masks(), v_mask.astype(bool), err_msg=f"mask {k}")
            obs, reward, terminated, truncated, info = single.step(int(np.argmax(v_mask)))
            assert reward == pytest.approx(v_reward), k
            assert terminated == (k == len(episode["steps"]) - 1)
        np.testing.assert_array_equal(obs, episode["final_obs"], err_msg="the learner's final view")
        final = info["scores"]
        assert list(final) == episode["scores"]
        mine = final[single.config.side_of(episode["seat"])]
        others = [s for i, s in enumerate(final) if i != single.config.side_of(episode["seat"])]
        assert episode["outcome"] == (1.0 if mine > max(others) else -1.0 if mine < max(others) else 0.0)


# ---------------------------------------------------------------- Gymnasium vector-env checks
def test_spaces_and_shapes_follow_the_vector_api():
    env = AllFivesVectorEnv(8, num_players=3, opponents="greedy")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    obs, infos = env.reset(seed=0)
    assert env.observation_space.shape == (8, 317) and env.single_observation_space.shape == (317,)
    assert env.action_space.shape == (8,) and env.single_action_space.n == NUM_ACTIONS
    assert obs in env.observation_space and obs.dtype == np.float32
    assert infos["action_mask"].shape == (8, NUM_ACTIONS) and infos["action_mask"].dtype == bool
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(80):
        obs, rewards, terminated, truncated, infos = env.step(random_legal(env.action_masks(), rng))
        assert obs in env.observation_space
        assert rewards.shape == (8,) and rewards.dtype == np.float32
        assert terminated.dtype == bool and not truncated.any()
        assert (env.action_masks() == infos["action_mask"]).all() and env.action_masks().any(axis=1).all()
        assert (infos["seat"] == env.games.seat).all()
        assert_every_key_has_its_mask(infos, 8)
        if terminated.any():
            ended += int(terminated.sum())
            assert (infos["_final_obs"] == terminated).all()
            assert (infos["final_obs"][~terminated] == 0).all()
            assert set(infos["final_info"]["outcome"][terminated]) <= {-1.0, 0.0, 1.0}
    assert ended > 0


def assert_every_key_has_its_mask(infos, num_envs):
    """Gymnasium's vector convention: each ``key`` beside a ``_key``, a (B,) bool of the games that hold it."""
    for key in infos:
        if not key.startswith("_"):
            mask = infos[f"_{key}"]
            assert mask.shape == (num_envs,) and mask.dtype == bool, key
    if "final_info" in infos:  # an info dict itself (final_obs is an observation, batched as the space says)
        assert_every_key_has_its_mask(infos["final_info"], num_envs)


def test_dict_observations_carry_the_mask():
    env = AllFivesVectorEnv(4, num_players=2, opponents="random", obs="dict")
    obs, infos = env.reset(seed=1)
    assert obs in env.observation_space
    assert (obs["action_mask"].astype(bool) == infos["action_mask"]).all()


def test_a_seed_fixes_every_episode_and_seeds_differ():
    def play(seed):
        env = AllFivesVectorEnv(6, num_players=4, opponents=["random", "heuristic", "random"])
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(3)
        trace = [obs]
        for _ in range(30):
            obs, rewards, terminated, _, infos = env.step(random_legal(env.action_masks(), rng))
            trace += [obs, rewards, infos["seat"]]
        return trace

    first, again, other = play(7), play(7), play(8)
    assert all(np.array_equal(a, b) for a, b in zip(first, again))
    assert not all(np.array_equal(a, b) for a, b in zip(first, other))


def test_illegal_actions_are_penalized_or_refused():
    env = AllFivesVectorEnv(4, num_players=2, opponents="greedy")
    obs, infos = env.reset(seed=2)
    actions = lowest_legal(infos["action_mask"])
    illegal = int(np.flatnonzero(~infos["action_mask"][1])[0])
    actions[1] = illegal
    obs2, rewards, terminated, _, infos2 = env.step(actions)
    assert rewards[1] == -1.0 and (obs2[1] == obs[1]).all()  # game 1 did not move
    assert infos2["illegal_action"].tolist() == [False, True, False, False]  # as the single wrapper's info
    _, _, _, _, infos3 = env.step(lowest_legal(infos2["action_mask"]))
    assert not infos3["illegal_action"].any()
    strict = AllFivesVectorEnv(4, num_players=2, opponents="greedy", illegal_action="raise")
    _, infos = strict.reset(seed=2)
    actions = lowest_legal(infos["action_mask"])
    actions[3] = int(np.flatnonzero(~infos["action_mask"][3])[0])
    with pytest.raises(ValueError, match="game 3: action .* is not legal"):
        strict.step(actions)
    with pytest.raises(ValueError, match=r"outside Discrete\(114\)"):
        strict.step(np.full(4, 114))
    with pytest.raises(ValueError, match="shape"):
        strict.step(np.zeros(3, np.int64))
    with pytest.raises(TypeError, match="actions has dtype float64; expected integer action ids"):  # as VectorAllFives
        strict.step(actions.astype(float))


def test_a_refused_action_loses_no_reward_that_was_waiting():
    """What the opponents scored before the learner's refused step still reaches its next step:
    the same rewards as a run that never made the illegal call."""

    def rewards_over(steps, refuse_at):
        env = AllFivesVectorEnv(6, num_players=2, opponents="greedy", illegal_action="raise", reward="zero_sum")
        _, infos = env.reset(seed=5)
        seen = []
        for step in range(steps):
            mask = infos["action_mask"]
            if step == refuse_at:
                wrong = lowest_legal(mask)
                wrong[0] = int(np.flatnonzero(~mask[0])[0])
                with pytest.raises(ValueError, match="no game was stepped"):
                    env.step(wrong)
            _, rewards, _, _, infos = env.step(lowest_legal(mask))
            seen.append(rewards.copy())
        return np.array(seen)

    plain = rewards_over(30, refuse_at=None)
    assert plain.any()
    for refuse_at in range(30):
        assert np.array_equal(rewards_over(30, refuse_at), plain), refuse_at


def test_action_masks_before_reset_says_reset_first():
    with pytest.raises(RuntimeError, match=r"call reset\(\) before action_masks\(\)"):
        AllFivesVectorEnv(2, num_players=2).action_masks()


@pytest.mark.parametrize("kwargs,message", [
    ({"opponents": "search"}, "opponents\\[0\\]: agent 'search' has no batched twin: the batched search is search:engine=compiled"),
    ({"opponents": "champion"}, "opponents\\[0\\]: agent 'champion' has no batched twin; allowed: random, "),
    # a twin's options: the option named, where "has no batched twin" was said of a twin the list then named
    ({"opponents": "heuristic:foo=1"}, "agent 'heuristic:foo=1' has no batched twin: the batched heuristic takes no options, not foo; "),
    ({"opponents": "ppo:checkpoints/ppo_2p.pt,sample=true"}, "the batched ppo takes infer, any_rules, not sample; "),
    ({"opponents": ["greedy"] * 2, "num_players": 2}, "2 opponent specs for 1 non-learner seat"),
    ({"learner": 3}, "learner=3 is not a seat"),
    ({"control": "side"}, "control='side' is not allowed with 2 players"),
    ({"obs": "pixels"}, "obs"),
    ({"reward": "money"}, "reward"),
    ({"reward_scale": 0}, "reward_scale=0 is not allowed; allowed: a positive, finite number"),
    ({"reward_scale": -1}, "reward_scale=-1 is not allowed; allowed: a positive, finite number"),
])
def test_bad_arguments_fail_at_construction_in_one_line(kwargs, message):
    with pytest.raises(ValueError, match=message):
        AllFivesVectorEnv(2, **kwargs)


def _episodes_checked_against_margins(games, seed, steps, learner, outcome=False) -> int:
    """Play ``steps`` steps of 2-player ``games`` (the learner at seat ``learner`` plays its lowest legal
    action) and check that each ended episode's summed reward is the learner's final margin (and, with
    ``outcome``, its outcome the margin's sign); returns how many episodes were checked."""
    out = games.reset(seed=seed)
    returns = np.zeros(len(out.mask))
    checked = 0
    for _ in range(steps):
        out, rewards, terminated = games.step(lowest_legal(out.mask))
        returns += rewards
        for b in np.flatnonzero(terminated):
            scores = games.final()[1][b]
            assert returns[b] == pytest.approx(scores[learner] - scores[1 - learner])
            if outcome:
                assert games.final()[2][b] == np.sign(scores[learner] - scores[1 - learner])
            returns[b] = 0.0
            checked += 1
    return checked


@pytest.mark.parametrize("learner", [0, 1])
def test_an_episodes_return_is_the_learners_final_margin_in_zero_sum(learner):
    """Summed zero-sum rewards of a game equal the learner's final score minus the opponent's (2p)."""
    games = LearnerGames(16, 2, learner=learner, opponents="greedy", reward="zero_sum")
    assert _episodes_checked_against_margins(games, 4, 300, learner, outcome=True) >= 10


# ---------------------------------------------------------------- SB3
def test_sb3_vecenv_and_maskable_ppo_train_on_it():
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    env = VecMonitor(AllFivesVecEnv(16, num_players=2, opponents="greedy", reward="zero_sum"))
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (16, 277)
    masks = get_action_masks(env)
    assert masks.shape == (16, NUM_ACTIONS) and masks.any(axis=1).all()
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=256, n_epochs=1, seed=0, device="cpu")
    before = [p.detach().clone() for p in model.policy.parameters()]
    model.learn(16 * 32 * 2)
    assert any(not np.allclose(a.numpy(), b.detach().numpy()) for a, b in zip(before, model.policy.parameters()))
    assert len(model.ep_info_buffer) > 0  # VecMonitor saw finished games
    # the trained policy only picks legal actions when masked
    obs = env.reset()
    actions, _ = model.predict(obs, action_masks=get_action_masks(env), deterministic=True)
    assert get_action_masks(env)[np.arange(16), actions].all()
    obs, rewards, dones, infos = env.step(actions)
    assert obs.shape == (16, 277) and rewards.shape == (16,)


def test_sb3_seed_is_checked_when_given_and_draws_nothing_from_numpys_global_generator():
    """SB3's contract: the seed is used at the next reset. A bad one was accepted and failed only then."""
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    env = AllFivesVecEnv(4, num_players=2, opponents="greedy")
    for bad in (-1, 1.5, "abc", True):
        with pytest.raises(ValueError, match="is not allowed; allowed: None or a non-negative integer"):
            env.seed(bad)
    assert env.seed(7) == [7, 8, 9, 10]
    first = env.reset()
    env.seed(7)
    assert np.array_equal(env.reset(), first)
    before = np.random.get_state()
    assert env.seed(None) == [None] * 4
    env.reset()
    after = np.random.get_state()
    assert np.array_equal(after[1], before[1]) and after[2:] == before[2:]  # the keys and the position


def test_sb3_terminal_observation_is_the_learners_last_view():
    pytest.importorskip("stable_baselines3")
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    env = AllFivesVecEnv(8, num_players=2, opponents="greedy", episode="hand")
    obs = env.reset()
    seen = 0
    for _ in range(60):
        obs, rewards, dones, infos = env.step(lowest_legal(env.action_masks()))
        for b in np.flatnonzero(dones):
            final = infos[b]["terminal_observation"]
            assert final.shape == (277,) and infos[b]["outcome"] in (-1.0, 0.0, 1.0)
            assert not np.array_equal(final, obs[b])  # the new episode's first view is another
            seen += 1
    assert seen > 0


@pytest.mark.parametrize("seed", [-1, 1.5, True, "x"])
def test_a_bad_reset_seed_is_refused_in_the_words_of_every_env(seed):
    env = AllFivesVectorEnv(2)
    with pytest.raises(ValueError, match=r"seed=.* is not allowed; allowed: None or a non-negative integer$"):
        env.reset(seed=seed)


def test_sb3_actions_of_the_wrong_size_are_named_in_the_librarys_words():
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    env = AllFivesVecEnv(8, num_players=2, opponents="greedy")
    env.reset()
    with pytest.raises(ValueError, match=r"actions has shape \(9,\); expected \(8,\), one per game"):
        env.step(np.zeros(9, np.int64))
    obs, _, _, infos = env.step(lowest_legal(env.action_masks()).reshape(8, 1))  # SB3's (B, 1) is fine
    assert obs.shape == (8, 277) and not any(info["illegal_action"] for info in infos)
    actions = lowest_legal(env.action_masks())
    actions[2] = int(np.flatnonzero(~env.action_masks()[2])[0])
    _, rewards, _, infos = env.step(actions)
    assert [info["illegal_action"] for info in infos] == [b == 2 for b in range(8)] and rewards[2] == -1.0


@pytest.mark.parametrize("module, blocked, words", [
    ("allfives_env.integrations.rllib", "ray",
     r'needs RLlib and torch \(.*ray.*\): pip install -e "\.\[rllib,train\]"'),
    ("allfives_env.integrations.rllib", "torch", r'needs RLlib and torch \(.*torch.*\)'),
    ("allfives_env.integrations.sb3_vec", "stable_baselines3",
     r'needs Stable-Baselines3 \(.*\): pip install -e "\.\[sb3\]"'),
])
def test_a_missing_optional_package_is_named_with_its_extra(module, blocked, words):
    import re
    import subprocess
    import sys

    code = f"import sys; sys.modules[{blocked!r}] = None; import {module}"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    last = result.stderr.strip().splitlines()[-1]
    assert result.returncode == 1 and last.startswith("ImportError: ") and re.search(words, last), result.stderr


def test_sb3_game_ends_are_terminations_not_time_limits():
    """Episodes end with the game or hand and never by truncation: SB3 must not bootstrap from the
    terminal observation, so an ended game's info says TimeLimit.truncated is False."""
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    env = AllFivesVecEnv(8, num_players=2, opponents="greedy", episode="hand")
    env.seed(3)
    env.reset()
    seen = 0
    for _ in range(60):
        masks = env.action_masks()
        _, _, dones, infos = env.step(masks.argmax(axis=1))
        for b in range(8):
            assert infos[b].get("TimeLimit.truncated", False) is False
            seen += bool(dones[b])
    assert seen > 0


def test_reward_scale_multiplies_every_learner_reward():
    """``reward_scale`` multiplies every reward the learner gets."""

    def rewards(scale):
        env = AllFivesVectorEnv(6, num_players=2, opponents="greedy", reward="zero_sum", reward_scale=scale)
        _, infos = env.reset(seed=3)
        seen = []
        for _ in range(30):
            _, r, _, _, infos = env.step(np.argmax(infos["action_mask"], axis=1).astype(np.int64))
            seen.append(r.copy())
        return np.array(seen)

    plain = rewards(1.0)
    assert np.abs(plain).sum() > 0
    np.testing.assert_allclose(rewards(0.25), 0.25 * plain)


def test_a_penalized_action_keeps_the_reward_that_was_waiting():
    """What the opponents scored before the learner's first decision reaches it even when that decision is
    illegal: illegal then legal adds up to the legal step minus the penalty."""

    def env():
        e = AllFivesVectorEnv(32, num_players=2, learner=1, opponents="greedy", reward="zero_sum")
        return e, e.reset(seed=4)[1]

    plain, infos = env()
    _, legal_rewards, _, _, _ = plain.step(np.argmax(infos["action_mask"], axis=1).astype(np.int64))
    penalized, infos = env()
    illegal = np.argmin(infos["action_mask"], axis=1).astype(np.int64)
    _, first, _, _, infos2 = penalized.step(illegal)
    assert infos2["illegal_action"].all()
    waiting = first + 1.0
    assert np.any(waiting != 0)  # some opponent scored with its lead
    _, second, _, _, _ = penalized.step(np.argmax(infos["action_mask"], axis=1).astype(np.int64))
    np.testing.assert_allclose(first + second, legal_rewards - 1.0)


@pytest.mark.parametrize("learner", [0, 1])
def test_a_game_the_opponent_wins_with_its_lead_adds_nothing_to_the_next_episodes_return(learner):
    """V2 target 5: an opponent's scoring lead wins the game at once (R3, R15), before the learner has a
    decision; that episode is not the learner's (as the single-game wrapper skips it), so its points do
    not reach the learner's next episode: every reported return is that episode's final margin.
    Catches (gym_vector.py _advance: ``self._pending[ended & was_done] = 0.0`` dropped)."""
    games = LearnerGames(32, 2, learner=learner, opponents="greedy", reward="zero_sum", target=5)
    assert _episodes_checked_against_margins(games, 1, 60, learner) >= 30
