"""The example and benchmark scripts' argument checks (``allfives_env.integrations.run_args``) and the examples' refusals."""

from argparse import Namespace

import pytest
from support import load_script

from allfives_env.integrations.run_args import check_run_args


def _args(**values):
    base = {"games": 10, "minutes": 0.0, "opponent": "greedy", "against": ["random", "greedy"], "json": None,
            "checkpoint": None}
    return Namespace(**{**base, **values})


def test_good_arguments_pass(tmp_path):
    check_run_args(_args(json=str(tmp_path / "out.json"), checkpoint=str(tmp_path / "ckpt")), positive=["games"],
                   at_least_zero=["minutes"], specs=["opponent", "against"], outputs=["json"],
                   new_folders=["checkpoint"])


@pytest.mark.parametrize("values,message", [
    ({"games": 0}, "--games must be positive, got 0"),
    ({"games": -3}, "--games must be positive, got -3"),
    ({"minutes": -0.5}, "--minutes must be at least 0 (0: none), got -0.5"),
    ({"opponent": "grdy"}, "unknown agent spec 'grdy'"),
    ({"against": ["random", "search:samples=0"]}, "samples"),
    ({"json": "/no/such/folder/out.json"}, "--json /no/such/folder/out.json: folder /no/such/folder does not exist"),
    ({"json": "{tmp}"}, "is an existing folder"),
    ({"checkpoint": "/no/such/folder/ckpt"}, "--checkpoint /no/such/folder/ckpt: folder /no/such/folder does not exist"),
])
def test_each_bad_value_is_named(tmp_path, values, message):
    values = {k: v.replace("{tmp}", str(tmp_path)) if isinstance(v, str) else v for k, v in values.items()}
    with pytest.raises(ValueError) as error:
        check_run_args(_args(**values), positive=["games"], at_least_zero=["minutes"], specs=["opponent", "against"],
                       outputs=["json"], new_folders=["checkpoint"])
    assert message in str(error.value) and "\n" not in str(error.value)
    assert not list(tmp_path.iterdir())  # nothing made


def test_an_output_may_not_be_an_input_nor_another_output(tmp_path):
    from allfives_env.agents.registry import shipped_file

    shipped = shipped_file("checkpoints/ppo_2p.pt")
    with pytest.raises(ValueError, match=r"^--json .*ppo_2p.pt is a policy file the package ships"):
        check_run_args(Namespace(json=shipped), outputs=["json"])
    spec_file = tmp_path / "mine.pt"
    spec_file.write_bytes(b"x")
    with pytest.raises(ValueError, match=r"is the file that agent 'ppo:.*mine.pt' reads"):
        check_run_args(Namespace(json=str(spec_file), opponent=f"ppo:{spec_file}"), outputs=["json"],
                       inputs=[f"ppo:{spec_file}"])
    same = str(tmp_path / "out")
    with pytest.raises(ValueError, match=r"^--json and --plot name the same file"):
        check_run_args(Namespace(json=same + ".png", plot=same + ".png"), outputs=["json"], images=["plot"])
    with pytest.raises(ValueError, match=r"^--plot .*out.txt: a picture is written as .*\.png.*; give a file name"):
        check_run_args(Namespace(plot=str(tmp_path / "out.txt")), images=["plot"])
    check_run_args(Namespace(json=same + ".json", plot=same + ".PNG"), outputs=["json"], images=["plot"])
    check_run_args(Namespace(plot=same + ".jpg"), images=["plot"])  # any format matplotlib writes here


def test_sb3_example_checks_the_model_file_that_save_writes(tmp_path):
    """MaskablePPO.save adds .zip to a name without a suffix: --json m --save m are two files, m and m.zip."""
    example = load_script("examples/sb3_maskable_ppo.py")
    args = example.parse_args(["--json", str(tmp_path / "m"), "--save", str(tmp_path / "m")])
    assert args.save == str(tmp_path / "m.zip")
    assert example.parse_args(["--save", str(tmp_path / "m.pt")]).save == str(tmp_path / "m.pt")


def test_each_value_of_a_list_option_is_checked():
    check_run_args(Namespace(sizes=[64, 1024]), positive=["sizes"])
    with pytest.raises(ValueError, match=r"^--sizes must be positive, got -5$"):
        check_run_args(Namespace(sizes=[64, -5]), positive=["sizes"])


@pytest.mark.parametrize("script,args,message", [
    ("openspiel_dqn.py", ["--learn-every", "2"], "--learn-every must be at least 3 (OpenSpiel's DQN fails below), got 2"),
    ("openspiel_dqn.py", ["--minutes", "0"], "--minutes must be positive, got 0.0"),
    ("openspiel_dqn.py", ["--json", "/no/such/folder/dqn.json"], "folder /no/such/folder does not exist"),
    ("rllib_selfplay.py", ["--players", "5"], "invalid choice: 5"),
    ("rllib_selfplay.py", ["--iterations", "0"], "--iterations must be positive, got 0"),
    # these ended in torch's traceback or trained on silently
    ("sb3_maskable_ppo.py", ["--learning-rate", "-1"], "--learning-rate must be positive, got -1.0"),
    ("sb3_maskable_ppo.py", ["--net", "128", "0"], "--net must be positive, got 0"),
    ("sb3_maskable_ppo.py", ["--gamma", "2"], "--gamma must be in (0, 1], got 2.0"),
    ("sb3_maskable_ppo.py", ["--gae-lambda", "-0.5"], "--gae-lambda must be in [0, 1], got -0.5"),
    ("openspiel_dqn.py", ["--learning-rate", "0"], "--learning-rate must be positive, got 0.0"),
    ("rllib_selfplay.py", ["--hiddens", "0"], "--hiddens must be positive, got 0"),
    ("rllib_selfplay.py", ["--eval-seed", "-1"], "--eval-seed -1 is not allowed; allowed: a whole number >= 0"),
    # each was found only after the training, or trained on without a word
    ("sb3_maskable_ppo.py", ["--eval-games", "2000000"], "--eval-games 2000000 is not allowed; allowed: at most 1,000,000"),
    ("sb3_maskable_ppo.py", ["--players", "2", "--eval-against", "ppo:checkpoints/ppo_4p.pt"],
     "was trained for 4 players; this game has 2"),
    ("sb3_maskable_ppo.py", ["--n-steps", "100000000"], "transitions a rollout; allowed: at most 2,000,000"),
    ("sb3_maskable_ppo.py", ["--minutes", "inf"], "--minutes must be a finite number, got inf"),
    ("openspiel_dqn.py", ["--buffer", "10"], "--buffer 10 is not allowed; allowed: at least 1,000 and at least"),
    ("openspiel_dqn.py", ["--eval-games", "2000000"], "allowed: at most 1,000,000"),
    ("rllib_selfplay.py", ["--checkpoint", "{file}"], "is a file, not a folder; give a folder's path"),
    ("rllib_selfplay.py", ["--minibatch-size", "10000", "--batch-size", "200"],
     "--minibatch-size 10000 is not allowed; allowed: at most --batch-size (200)"),
    ("rllib_selfplay.py", ["--players", "3", "--eval-against", "ppo:checkpoints/ppo_2p.pt"],
     "was trained for 2 players; this game has 3"),
])
def test_the_examples_refuse_bad_arguments_in_one_line(script, args, message, capsys, tmp_path):
    """--learn-every 2 crashed inside OpenSpiel after the first evaluation (about 25 s in); --players 5 started
    Ray and ended in a 68-line traceback."""
    example = load_script(f"examples/{script}")
    (tmp_path / "file").write_text("not a folder")
    with pytest.raises(SystemExit) as exit_info:
        example.parse_args([arg.format(file=tmp_path / "file") for arg in args])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err.strip().splitlines()[-1]
