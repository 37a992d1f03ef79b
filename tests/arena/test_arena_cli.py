"""`allfives eval` / `allfives rate` smoke runs and their one-line bad-input errors."""

import json
import subprocess
import sys

import pytest

import allfives_env
from allfives_env.arena.benchmark import code_version
from allfives_env.arena.outputs import check_output_file, write_output


def _run(*args):
    return subprocess.run([sys.executable, "-m", "allfives_env.cli", *args], capture_output=True, text=True, timeout=120)


def test_eval_smoke_with_json_and_records(tmp_path):
    out, rec = tmp_path / "r.json", tmp_path / "g.jsonl"
    proc = _run("eval", "--players", "2", "--agents", "greedy", "random", "--games", "4", "--seed", "1",
                "--target", "100", "--json", str(out), "--records", str(rec))
    assert proc.returncode == 0, proc.stderr
    assert "win rate" in proc.stdout and "greedy" in proc.stdout
    data = json.loads(out.read_text())
    assert data["games"] == 4 and data["players"] == 2
    # the code that played it, as a benchmark scorecard says: the package version and the checkout's commit
    assert data["code"] == code_version() and data["code"]["version"] == allfives_env.__version__
    assert [a["spec"] for a in data["agents"]] == ["greedy", "random"]
    for agent in data["agents"]:
        lo, hi = agent["win_rate_ci95"]
        assert 0 <= lo <= agent["win_rate"] <= hi <= 1
        assert {"points_per_game", "margin_per_game", "points_per_hand", "hands_per_game"} <= set(agent)
    assert len(rec.read_text().splitlines()) == 4


def test_eval_four_players_with_workers_and_user_class():
    proc = _run("eval", "--players", "4", "--agents", "allfives_env.agents.greedy:GreedyAgent", "search:samples=2",
                "--games", "2", "--target", "60", "--workers", "2")
    assert proc.returncode == 0, proc.stderr


def test_rate_smoke(tmp_path):
    out = tmp_path / "rating.json"
    proc = _run("rate", "--agents", "random", "greedy", "--games", "2", "--target", "60", "--json", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "Elo" in proc.stdout
    assert json.loads(out.read_text())["code"] == code_version()


@pytest.mark.parametrize("args, words", [
    (["eval", "--agents", "greedy", "nosuch"], "unknown agent spec"),
    (["eval", "--agents", "greedy", "ppo:/no/such/checkpoint.pt"], "checkpoint not found"),
    (["eval", "--agents", "greedy", "random", "random"], "give exactly 2"),
    (["eval", "--players", "4", "--agents", "greedy"], "give exactly 2"),
    (["eval", "--players", "5", "--agents", "greedy", "random"], "2, 3 or 4"),
    (["eval", "--agents", "search:samples=0", "random"], "samples"),
    (["eval", "--agents", "greedy", "random", "--games", "0"], "positive"),
    (["nosuchcommand"], "invalid choice"),
    # named by the subcommand, as its other errors are (was "allfives: error: ...")
    (["eval", "--agents", "greedy", "random", "--bogus"], "allfives eval: error: unrecognized arguments: --bogus"),
    (["eval", "--agents", "greedy", "ppo:/dev/null"], "checkpoint '/dev/null' is not a regular file"),
    (["eval", "--agents", "greedy", "search:samples=2,"], "has an empty option"),
])
def test_bad_input_is_one_line_and_status_2(args, words):
    proc = _run(*args, "--games", "2") if "--games" not in args and args[0] == "eval" else _run(*args)
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert words in lines[0]


def test_write_output_replaces_what_the_file_held(tmp_path):
    """``--json OUT`` names a file that "may exist (it is replaced)": a second run's results replace the first's.
    Catches (outputs.py write_output: ``open(path, "w")`` -> ``open(path, "a")``)."""
    path = tmp_path / "out.json"
    write_output(check_output_file(path, "--json"), '{"run": 1}\n', "--json")
    write_output(check_output_file(path, "--json"), '{"run": 2}\n', "--json")
    assert path.read_text() == '{"run": 2}\n'
