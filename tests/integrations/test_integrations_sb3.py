"""Stable-Baselines3: sb3-contrib's MaskablePPO trains on the wrapper unchanged,
and the example script trains and evaluates through the arena.

sb3 is installed by scripts/setup.sh (the ``sb3`` extra): a missing import is
a failure here, not a skip."""

import json

import numpy as np
import pytest
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from support import load_script

from allfives_env.integrations import SingleAgentAllFives

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning", "ignore::DeprecationWarning")


def load_example():
    return load_script("examples/sb3_maskable_ppo.py")


def test_maskable_ppo_on_dict_observations_never_plays_illegal():
    env = SingleAgentAllFives(num_players=4, control="side", opponents="greedy", obs="dict")
    model = MaskablePPO("MultiInputPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0, device="cpu")
    model.learn(total_timesteps=128)
    vec = model.get_env()
    obs = vec.reset()
    for _ in range(200):
        action, _ = model.predict(obs, action_masks=get_action_masks(vec))
        obs, _, _, infos = vec.step(action)
        assert not infos[0]["illegal_action"]


@pytest.mark.parametrize("env_args", [["--env", "vector", "--num-envs", "16", "--n-steps", "64"],
                                      ["--env", "single", "--n-steps", "512"]], ids=["vector", "single"])
def test_example_trains_a_few_thousand_steps_and_evaluates(tmp_path, env_args):
    example = load_example()
    out = tmp_path / "run.json"
    summary = example.main([*env_args, "--timesteps", "2048", "--batch-size", "128", "--n-epochs", "2",
                            "--eval-games", "10", "--eval-against", "greedy", "random",
                            "--save", str(tmp_path / "model"), "--json", str(out)])
    assert summary["timesteps"] >= 2048
    assert json.loads(out.read_text())["timesteps"] == summary["timesteps"]
    assert (tmp_path / "model.zip").exists()
    for match in summary["eval"]:
        assert match["games"] == 10
        learner, opponent = match["agents"]
        assert learner["spec"] == "maskable_ppo"
        assert learner["wins"] + opponent["wins"] == pytest.approx(10)
        assert np.isfinite(learner["points_per_game"])


def test_the_example_reward_adds_the_win_bonus_once_per_game():
    """The training reward is zero-sum points x scale plus +/- the bonus at each game's end: a game's
    return is its final margin x scale + bonus x outcome."""
    example = load_example()
    args = example.parse_args(["--num-envs", "8", "--reward-scale", "0.5", "--win-bonus", "3"])
    env = example.make_env(args)
    env.seed(1)
    env.reset()
    games = env.unwrapped.games
    returns, checked = np.zeros(8), 0
    for _ in range(400):
        learner = games.seat.copy()
        _, rewards, dones, infos = env.step(np.argmax(env.env_method("action_masks"), axis=1))
        returns += rewards
        for b in np.flatnonzero(dones):
            scores = infos[b]["scores"]
            margin = scores[learner[b]] - scores[1 - learner[b]]
            assert returns[b] == pytest.approx(0.5 * margin + 3 * np.sign(margin))
            returns[b], checked = 0.0, checked + 1
    assert checked >= 5

@pytest.mark.parametrize("args,message", [
    (["--minutes", "-1"], "--minutes must be at least 0"),
    (["--eval-games", "0"], "--eval-games must be positive"),
    (["--opponent", "grdy"], "unknown agent spec 'grdy'"),
    (["--eval-against", "greedy", "ppo:missing.pt"], "checkpoint not found"),
    (["--json", "/no/such/folder/run.json"], "does not exist"),
    (["--opponent", "champion"], "has no batched twin"),
    (["--opponent", "ppo:checkpoints/ppo_3p.pt"], "3 players"),
    (["--env", "single", "--opponent", "ppo:checkpoints/ppo_3p.pt"], "3 players"),
    (["--players", "5"], "invalid choice: 5"),
])
def test_the_example_refuses_bad_arguments_before_training(args, message, capsys, monkeypatch):
    example = load_example()
    monkeypatch.setattr(example, "train", lambda args: pytest.fail("trained despite a bad argument"))
    with pytest.raises(SystemExit) as exit_info:
        example.main(args)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and err.strip().splitlines()[-1].count("error:") == 1


def test_the_gymnasium_wrappers_obs_option_is_refused_with_where_it_belongs():
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    with pytest.raises(ValueError, match=r"obs='dict' is not an option here: .* always flat vectors \(obs='dict' is "
                                         r"for AllFivesVectorEnv and SingleAgentAllFives\)"):
        AllFivesVecEnv(2, obs="dict")


def test_an_unknown_option_lists_the_vec_envs_own_options_too():
    """A misspelt ``reward_scale`` names the wrapper's options, not only the batched env's."""
    from allfives_env.integrations.sb3_vec import AllFivesVecEnv

    with pytest.raises(ValueError, match=r"^unknown option\(s\) \['reward_scal'\]; allowed: \['num_envs', 'num_players', "
                                         r"'learner', 'opponents', 'control', 'illegal_action', 'illegal_reward', "
                                         r"'reward_scale', .*'hand_scoring'"):
        AllFivesVecEnv(2, reward_scal=0.02)
