"""`allfives` bad input (issue 23): one line naming what is wrong and what is allowed, exit status 2,
nothing played or written; output paths are checked before the work that fills them."""

import json
import os
import subprocess
import sys
from importlib.metadata import version

import pytest
from support import run_cli

import allfives_env.arena.match
import allfives_env.play
from allfives_env.cli import main

AGENTS = ["--agents", "random", "random"]


def assert_one_line_error(status, out, err, *words):
    assert status == 2, (out, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert ": error: " in lines[0]
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


@pytest.fixture
def no_work(monkeypatch):
    """Every long job the cli can start fails the test if it starts."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work started before the bad input was refused")

    for module, name in [(allfives_env.arena.match, "_play_deals"),
                         (allfives_env.play, "play_session"), (allfives_env.play, "watch_session")]:
        monkeypatch.setattr(module, name, refuse)


# ------------------------------------------------------------------ wrong values of every flag
@pytest.mark.parametrize("argv, words", [
    # --target: the allowed values, never "None"
    (["eval", *AGENTS, "--target", "-10"], ["argument --target: -10 is not allowed", "a positive number of points"]),
    (["eval", *AGENTS, "--target", "0"], ["--target: 0 is not allowed", "positive"]),
    (["eval", *AGENTS, "--target", "abc"], ["--target: 'abc' is not a number", "positive"]),
    (["eval", *AGENTS, "--target", "nan"], ["--target: nan is not allowed"]),
    (["eval", *AGENTS, "--target", "inf"], ["--target: inf is not allowed"]),
    (["eval", *AGENTS, "--target", "10001"], ["--target: 10001 is not allowed", "up to 10,000"]),
    (["watch", *AGENTS, "--target", "-1"], ["--target: -1 is not allowed"]),
    (["record", *AGENTS, "--out", "x.gif", "--target", "-1"], ["--target: -1 is not allowed"]),
    # --games
    (["eval", *AGENTS, "--games", "-1"], ["--games: -1 is not allowed", "positive whole number of games"]),
    (["eval", *AGENTS, "--games", "0"], ["--games: 0 is not allowed"]),
    (["eval", *AGENTS, "--games", "1.5"], ["--games: '1.5' is not a whole number", "up to 1,000,000"]),
    (["eval", *AGENTS, "--games", "abc"], ["--games: 'abc' is not a whole number"]),
    (["eval", *AGENTS, "--games", "99999999999999999999"], ["--games: 99999999999999999999 is not allowed"]),
    (["rate", *AGENTS, "--games", "0"], ["--games: 0 is not allowed"]),
    # --players
    (["eval", *AGENTS, "--players", "5"], ["--players: 5 players is not allowed", "2, 3 or 4"]),
    (["eval", *AGENTS, "--players", "1"], ["--players: 1 players is not allowed"]),
    (["eval", *AGENTS, "--players", "2.0"], ["--players: '2.0' is not a whole number", "2, 3 or 4"]),
    (["play", "--players", "x"], ["--players: 'x' is not a whole number"]),
    (["record", *AGENTS, "--out", "x.gif", "--players", "0"], ["--players: 0 players is not allowed"]),
    # --seed
    (["eval", *AGENTS, "--seed", "-1"], ["--seed: -1 is not allowed", "a whole number >= 0"]),
    (["eval", *AGENTS, "--seed", "abc"], ["--seed: 'abc' is not a whole number", ">= 0"]),
    (["watch", *AGENTS, "--seed", "1.5"], ["--seed: '1.5' is not a whole number"]),
    (["play", "--seed", "-3"], ["--seed: -3 is not allowed"]),
    (["record", *AGENTS, "--out", "x.gif", "--seed", "x"], ["--seed: 'x' is not a whole number"]),
    # --workers
    (["eval", *AGENTS, "--workers", "0"], ["--workers: 0 is not allowed", "worker processes up to 256"]),
    (["eval", *AGENTS, "--workers", "257"], ["--workers: 257 is not allowed"]),
    (["rate", *AGENTS, "--workers", "two"], ["--workers: 'two' is not a whole number"]),
    # --agents
    (["eval", "--agents", "foo", "bar"], ["unknown agent spec 'foo'", "allowed: random, greedy"]),
    (["eval", "--agents", "search:samples=abc", "random"], ["samples='abc'", "a whole number from 1 to 100,000"]),
    (["eval", "--agents", "greedy", "random", "random"], ["give exactly 2"]),
    (["watch", "--agents", "nosuch"], ["unknown agent spec 'nosuch'"]),
    (["rate", "--agents", "random", "greedy", "nosuch"], ["unknown agent spec 'nosuch'"]),  # before any match
    (["play", "--agents", "nosuch"], ["unknown agent spec 'nosuch'"]),
    # --seat
    (["play", "--seat", "7"], ["--seat 7 is not a seat; allowed 0..1"]),
    (["play", "--players", "4", "--seat", "4"], ["--seat 4 is not a seat; allowed 0..3"]),
    (["play", "--seat", "-1"], ["--seat: -1 is not allowed", "a seat 0..players-1"]),
    (["play", "--seat", "abc"], ["--seat: 'abc' is not a whole number"]),
    (["play", "--partner", "greedy"], ["--partner is only for 4 players"]),
    # --delay, --frame-seconds, --game
    (["watch", *AGENTS, "--delay", "-1"], ["--delay: -1 is not allowed", "seconds from 0 to 60"]),
    (["watch", *AGENTS, "--delay", "inf"], ["--delay: inf is not allowed"]),
    (["watch", *AGENTS, "--delay", "61"], ["--delay: 61 is not allowed"]),
    (["watch", *AGENTS, "--delay", "abc"], ["--delay: 'abc' is not a number"]),
    (["record", *AGENTS, "--out", "x.gif", "--frame-seconds", "0"], ["--frame-seconds: 0 is not allowed",
                                                                    "seconds from 0.01 to 600"]),
    (["record", *AGENTS, "--out", "x.gif", "--frame-seconds", "-1"], ["--frame-seconds: -1 is not allowed"]),
    (["record", *AGENTS, "--out", "x.gif", "--frame-seconds", "inf"], ["--frame-seconds: inf is not allowed"]),
    (["record", *AGENTS, "--out", "frames", "--frame-seconds", "2"],  # PNG frames: was ignored
     ["--frame-seconds sets a GIF's frame time, and --out frames writes PNG frames"]),
    (["replay", "x.jsonl", "--game", "0"], ["--game: 0 is not allowed", "positive whole number"]),
    # options that do not go together, commands that do not exist
    (["eval", *AGENTS, "--rating", "--records", "r.jsonl"], ["--records is not written with --rating"]),
    (["nosuchcommand"], ["invalid choice: 'nosuchcommand'"]),
    (["eval"], ["the following arguments are required: --agents"]),
    (["play", "--players", "2", "--agents", "greedy", "greedy"], ["2 agent specs for 1 opponent seat (seat 1)"]),
    (["play", "--players", "3", "--agents", "greedy", "greedy", "greedy"], ["3 agent specs for 2 opponent seats"]),
])
def test_a_wrong_value_is_one_line_and_status_2(capsys, no_work, tmp_path, monkeypatch, argv, words):
    monkeypatch.chdir(tmp_path)
    line = assert_one_line_error(*run_cli(capsys, *argv), *words)
    assert "None" not in line
    assert list(tmp_path.iterdir()) == []  # nothing written


@pytest.mark.parametrize("argv, words", [
    (["--host", ""], ["--host: '' is not allowed", "127.0.0.1 (the default)"]),  # every interface, unguarded
    (["--host", "\udcff"], ["--host: '\\udcff' is not allowed"]),  # a traceback from the socket
    (["--agents", "random", "random"], ["agent spec 'random' is in --agents twice"]),  # a menu offering it twice
])
def test_serve_refuses_a_bad_host_or_agent_list_before_it_listens(capsys, monkeypatch, argv, words):
    def refuse(*args, **kwargs):
        raise AssertionError("the server started")

    monkeypatch.setattr("uvicorn.Server.run", refuse)
    assert_one_line_error(*run_cli(capsys, "serve", "--port", "0", *argv), *words)


def test_target_message_says_the_allowed_values_not_none(capsys, no_work):
    line = assert_one_line_error(*run_cli(capsys, "eval", *AGENTS, "--target", "-10"))
    assert "None" not in line and "positive number of points" in line and "250" in line


@pytest.mark.parametrize("text, value", [("60", 60), ("60.0", 60), ("1e2", 100), ("60.5", 60.5)])
def test_a_whole_target_stays_a_whole_number(text, value):
    """Records and the web's options showed 60.0 for --target 60."""
    from allfives_env.cli import build_parser

    target = build_parser().parse_args(["eval", *AGENTS, "--target", text]).target
    assert target == value and type(target) is type(value)


# ------------------------------------------------------------------ output paths, before the work
#: every output option of the cli: (argv before the path, option)
OUTPUTS = {
    "eval --json": (["eval", *AGENTS, "--games", "2", "--json"], "--json"),
    "eval --records": (["eval", *AGENTS, "--games", "2", "--records"], "--records"),
    "rate --json": (["rate", *AGENTS, "--games", "2", "--json"], "--json"),
    "play --record": (["play", "--seed", "1", "--record"], "--record"),
    "watch --record": (["watch", *AGENTS, "--seed", "1", "--delay", "0", "--record"], "--record"),
    "record --out": (["record", *AGENTS, "--out"], "--out"),
}
FILE_OUTPUTS = [name for name in OUTPUTS if name != "record --out"]


def _bad_paths(tmp_path, option):
    a_file = tmp_path / "a_file.txt"
    a_file.write_text("keep me")
    name = "out.gif" if option == "--out" else "out.json"
    return [
        (str(tmp_path / "missing" / "dir" / name), "does not exist"),
        (str(a_file / name), "is a file, not a folder"),
    ]


@pytest.mark.parametrize("name", OUTPUTS)
def test_an_output_in_a_missing_folder_fails_before_the_work(capsys, no_work, tmp_path, name):
    argv, option = OUTPUTS[name]
    for path, words in _bad_paths(tmp_path, option):
        line = assert_one_line_error(*run_cli(capsys, *argv, path), option, path, words)
        assert "Errno" not in line
    assert (tmp_path / "a_file.txt").read_text() == "keep me"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file.txt"]


@pytest.mark.parametrize("name", FILE_OUTPUTS)
def test_an_output_file_that_is_a_folder_fails_before_the_work(capsys, no_work, tmp_path, name):
    argv, option = OUTPUTS[name]
    assert_one_line_error(*run_cli(capsys, *argv, str(tmp_path)), f"{option} {tmp_path} is an existing folder",
                          "allowed: a file name in an existing, writable folder")
    assert_one_line_error(*run_cli(capsys, *argv, str(tmp_path / "new") + "/"), "ends with '/'")
    assert list(tmp_path.iterdir()) == []


def test_eval_json_in_a_missing_folder_fails_before_the_match(tmp_path):
    """The issue's case, end to end: no table printed, no match played."""
    missing = tmp_path / "missing" / "dir" / "out.json"
    proc = subprocess.run([sys.executable, "-m", "allfives_env.cli", "eval", *AGENTS, "--games", "100000",
                           "--json", str(missing)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == (f"allfives eval: error: --json {missing}: folder {missing.parent} does not "
                                   "exist; create it first or give a path in an existing folder")


def test_json_and_records_must_be_different_files(capsys, no_work, tmp_path):
    same = str(tmp_path / "same.json")
    assert_one_line_error(*run_cli(capsys, "eval", *AGENTS, "--json", same, "--records", same),
                          "--json and --records name the same file")


def test_an_output_that_is_a_shipped_policy_file_is_refused(capsys, no_work):
    """champion reads its value file without naming it: --json over it destroyed it (status 0)."""
    shipped = "checkpoints/champion_value_3p.pt"
    before = open(shipped, "rb").read()
    line = assert_one_line_error(*run_cli(capsys, "eval", "--players", "3", "--agents", "champion", "greedy", "greedy",
                                          "--games", "3", "--json", shipped), "is a policy file the package ships")
    assert shipped in line and open(shipped, "rb").read() == before


@pytest.mark.parametrize("output, words", [
    ("latest.pt", "is a file of the training run in {run} (--resume reads it)"),
    ("config.yaml", "is a file of the training run in {run} (--resume reads it)"),
    ("metrics.csv", "is a file of the training run in {run}"),
    ("elsewhere.pt", "is a policy or training checkpoint (.pt: agents play it, a run resumes from it)"),
])
@pytest.mark.parametrize("option", ["--json", "--records"])
def test_an_output_over_a_runs_file_or_a_policy_is_refused_and_the_file_kept(capsys, no_work, tmp_path, output,
                                                                             words, option):
    """eval --json RUN/latest.pt replaced the run's checkpoint, and --records RUN/config.yaml its config
    (status 0; the next --resume failed), where training.export refuses the same paths."""
    run = tmp_path / "run"
    run.mkdir()
    for name in ("latest.pt", "config.yaml", "metrics.csv"):
        (run / name).write_bytes(b"the run's own " + name.encode())
    (tmp_path / "elsewhere.pt").write_bytes(b"a policy")
    target = tmp_path / output if output == "elsewhere.pt" else run / output
    before = target.read_bytes()
    line = assert_one_line_error(*run_cli(capsys, "eval", *AGENTS, "--games", "2", option, str(target)),
                                 words.format(run=run), "give another path (the file is kept)")
    assert str(target) in line and target.read_bytes() == before


def test_a_link_to_a_runs_file_or_to_one_not_yet_written_is_refused(capsys, no_work, tmp_path):
    """The check read the name as given: out.json linking to RUN/latest.pt replaced the checkpoint."""
    from allfives_env.arena import run_match
    from allfives_env.rules import RulesConfig

    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.pt").write_bytes(b"a checkpoint")
    (tmp_path / "out.json").symlink_to(run / "latest.pt")
    (tmp_path / "best.json").symlink_to(run / "best.pt")  # best.pt: written at the run's next best
    for link in ("out.json", "best.json"):
        assert_one_line_error(*run_cli(capsys, "eval", *AGENTS, "--games", "2", "--json", str(tmp_path / link)),
                              f"is a file of the training run in {run}")
    with pytest.raises(ValueError, match=r"^records_path .*latest\.pt is a file of the training run"):
        run_match(RulesConfig(), ["random", "random"], 2, seed=0, records_path=run / "latest.pt")  # the Python API
    assert (run / "latest.pt").read_bytes() == b"a checkpoint" and not (run / "best.pt").exists()


def test_an_output_beside_a_run_with_another_name_is_written(capsys, tmp_path):
    """Results may go in a run's folder, under a name the run does not use."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "latest.pt").write_bytes(b"a checkpoint")
    assert run_cli(capsys, "eval", *AGENTS, "--games", "2", "--json", str(run / "eval.json"))[0] == 0
    assert (run / "eval.json").read_text().startswith("{") and (run / "latest.pt").read_bytes() == b"a checkpoint"


@pytest.mark.parametrize("command", [
    ["eval", "--agents", "ppo:{policy}", "random", "--json", "{policy}"],
    ["eval", "--agents", "ppo:{policy}", "random", "--records", "{policy}"],
    ["eval", "--agents", "champion:value={policy}", "random", "--json", "{policy}"],
    ["rate", "--agents", "ppo:{policy}", "random", "greedy", "--json", "{policy}"],
    ["benchmark", "ppo:{policy}", "--quick", "--opponents", "random", "--json", "{policy}"],
    ["benchmark", "ppo:{policy}", "--quick", "--opponents", "random", "--markdown", "{policy}"],
    ["exploit", "ppo:{policy}", "--minutes", "0.02", "--games", "2", "--json", "{policy}"],
])
def test_an_output_that_is_an_agents_file_is_refused_and_the_file_kept(capsys, no_work, tmp_path, command):
    """The results went over the policy file the agent had read (status 0, the policy lost)."""
    import shutil

    policy = tmp_path / "p2.pt"
    shutil.copy("checkpoints/ppo_2p.pt", policy)
    before = policy.read_bytes()
    line = assert_one_line_error(*run_cli(capsys, *[word.format(policy=policy) for word in command]),
                                 f"{policy} is the file that agent", "give another path")
    assert "p2.pt" in line and policy.read_bytes() == before


def test_run_match_checks_records_path_before_playing(monkeypatch, tmp_path):
    from allfives_env.arena import match
    from allfives_env.rules import RulesConfig

    monkeypatch.setattr(match, "_play_deals", lambda *a: pytest.fail("played before checking records_path"))
    with pytest.raises(ValueError, match="records_path .*does not exist"):
        match.run_match(RulesConfig(), ["random", "random"], 2, records_path=tmp_path / "no" / "g.jsonl")
    with pytest.raises(ValueError, match="records_path .* is an existing folder"):
        match.run_match(RulesConfig(), ["random", "random"], 2, records_path=tmp_path)


# ------------------------------------------------------------------ record --out: GIF or PNG frames
@pytest.mark.parametrize("name", ["out.png", "game.mp4", "frames.v1", "movie.GIFF"])
def test_record_out_with_another_extension_is_refused(capsys, no_work, tmp_path, name):
    out = tmp_path / name
    line = assert_one_line_error(*run_cli(capsys, "record", *AGENTS, "--out", str(out)), f"--out {out}",
                                 "neither a GIF nor a folder of frames",
                                 "--out NAME.gif for an animated GIF", "--out FOLDER/")
    assert "Errno" not in line
    assert not out.exists()  # `--out out.png` used to make a folder named out.png


def test_record_out_forms(capsys, no_work, tmp_path):
    from allfives_env.cli import _record_target

    assert _record_target(str(tmp_path / "game.gif")) == ("gif", str(tmp_path / "game.gif"))
    assert _record_target(str(tmp_path / "GAME.GIF"))[0] == "gif"
    assert _record_target(str(tmp_path / "frames") + "/") == ("frames", str(tmp_path / "frames"))
    assert _record_target(str(tmp_path / "frames")) == ("frames", str(tmp_path / "frames"))
    (tmp_path / "shots.v2").mkdir()  # an existing folder is a frames folder whatever its name
    assert _record_target(str(tmp_path / "shots.v2")) == ("frames", str(tmp_path / "shots.v2"))
    assert not (tmp_path / "frames").exists()  # nothing made before the game is played


def test_record_out_refuses_a_place_it_cannot_write(capsys, no_work, tmp_path):
    (tmp_path / "game.gif").mkdir()
    assert_one_line_error(*run_cli(capsys, "record", *AGENTS, "--out", str(tmp_path / "game.gif")),
                          "is an existing folder")
    (tmp_path / "notes").write_text("keep")
    assert_one_line_error(*run_cli(capsys, "record", *AGENTS, "--out", str(tmp_path / "notes")),
                          "is an existing file, not a folder", "--out NAME.gif")
    old = tmp_path / "old"
    old.mkdir()
    (old / "frame_00000.png").write_bytes(b"old frame")
    assert_one_line_error(*run_cli(capsys, "record", *AGENTS, "--out", str(old) + "/"),
                          "already holds frame_*.png files", "give a new folder or one without frame_*.png files")
    assert (old / "frame_00000.png").read_bytes() == b"old frame"
    assert (tmp_path / "notes").read_text() == "keep"


def test_record_writes_png_frames_into_a_new_folder(capsys, tmp_path):
    out = tmp_path / "frames"
    status, stdout, err = run_cli(capsys, "record", "--agents", "greedy", "random", "--seed", "1", "--target", "20",
                                  "--out", str(out) + "/")
    assert status == 0, err
    frames = sorted(p.name for p in out.iterdir())
    assert frames[0] == "frame_00000.png" and len(frames) > 3
    assert stdout.strip().endswith(f"written to {out}/frame_*.png")


def test_record_writes_a_gif_named_only_by_its_extension(capsys, tmp_path):
    """``--out .gif`` was accepted, the game played and drawn, then refused ("unknown file extension")."""
    out = tmp_path / ".gif"
    status, stdout, err = run_cli(capsys, "record", "--agents", "greedy", "random", "--seed", "1", "--target", "20",
                                  "--out", str(out))
    assert status == 0, err
    assert out.read_bytes()[:6] == b"GIF89a" and stdout.strip().endswith(f"written to {out}")


@pytest.mark.parametrize("command", [
    ["eval", *AGENTS, "--games", "2", "--json"],
    ["rate", "--agents", "random", "greedy", "--games", "2", "--json"],
    ["benchmark", "greedy", "--quick", "--no-progress", "--opponents", "random", "--markdown"],
])
def test_a_full_disk_at_the_end_names_the_output_and_keeps_the_results_on_screen(capsys, monkeypatch, tmp_path,
                                                                                  command):
    """A write that can only fail at the end (a full disk) said only "No space left on device"."""
    import errno

    import allfives_env.arena.outputs

    def full_disk(path, mode="r", *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    target = str(tmp_path / "out.txt")
    monkeypatch.setattr(allfives_env.arena.outputs, "open", full_disk, raising=False)
    status, out, err = run_cli(capsys, *command, target)
    option = command[-1]
    assert_one_line_error(status, out, err, f"{option} {target}: No space left on device",
                          "the results are printed above")
    assert out.strip()  # the table was printed before the write


# ------------------------------------------------------------------ output works when it is allowed
def test_eval_writes_json_and_records_into_an_existing_folder(capsys, tmp_path):
    status, _, err = run_cli(capsys, "eval", *AGENTS, "--games", "2", "--target", "30", "--no-progress",
                             "--json", str(tmp_path / "r.json"), "--records", str(tmp_path / "g.jsonl"))
    assert status == 0, err
    assert json.loads((tmp_path / "r.json").read_text())["games"] == 2
    assert len((tmp_path / "g.jsonl").read_text().splitlines()) == 2


def test_reading_a_missing_or_folder_record_is_one_line(capsys, tmp_path):
    assert_one_line_error(*run_cli(capsys, "replay", str(tmp_path / "none.jsonl")),
                          f"{tmp_path / 'none.jsonl'}: No such file or directory")
    assert_one_line_error(*run_cli(capsys, "replay", str(tmp_path)), f"{tmp_path}: Is a directory")


@pytest.mark.parametrize("html", [False, True])
def test_a_record_that_does_not_replay_is_one_line_in_both_replays(capsys, tmp_path, html):
    """A scores_after edited by hand: the terminal replay says so as --html does (one line, status 2)."""
    assert run_cli(capsys, "eval", "--agents", "greedy", "random", "--games", "1", "--records",
                   str(tmp_path / "g.jsonl"), "--no-progress")[0] == 0
    record = json.loads((tmp_path / "g.jsonl").read_text().splitlines()[0])
    record["hands"][0]["scores_after"][0] += 5
    (tmp_path / "bad.jsonl").write_text(json.dumps(record) + "\n")
    page = ["--html", str(tmp_path / "game.html")] if html else []
    assert_one_line_error(*run_cli(capsys, "replay", str(tmp_path / "bad.jsonl"), *page),
                          "Record check failed: hand 1 replays to scores")
    assert not (tmp_path / "game.html").exists()


# ------------------------------------------------------------------ --version
def test_version_is_the_installed_distributions(capsys):
    status, out, _ = run_cli(capsys, "--version")
    assert status == 0
    assert out.strip() == f"allfives-env {version('allfives-env')}"


@pytest.mark.parametrize("module", ["allfives_env.cli", "allfives_env"])  # python -m allfives_env is the command
def test_version_through_the_command(module):
    proc = subprocess.run([sys.executable, "-m", module, "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"allfives-env {version('allfives-env')}"


def test_an_output_folder_that_is_not_writable(capsys, no_work, tmp_path, monkeypatch):
    """(Faked: these tests may run as root, for whom every folder is writable.)"""
    import allfives_env.arena.outputs as outputs

    monkeypatch.setattr(outputs.os, "access", lambda path, mode: False)
    for argv, option in OUTPUTS.values():
        name = "out.gif" if option == "--out" else "out.json"
        assert_one_line_error(*run_cli(capsys, *argv, str(tmp_path / name)), option,
                              f"folder {tmp_path} is not writable")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_where_no_file_can_be_created_fails_before_the_work(capsys, no_work, tmp_path, monkeypatch):
    """As root, os.access says yes everywhere (/proc, read-only mounts): a probe file decides."""
    import allfives_env.arena.outputs as outputs

    monkeypatch.setattr(outputs.os, "access", lambda path, mode: True)

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(outputs.tempfile, "mkstemp", refuse)
    for argv, option in OUTPUTS.values():
        name = "out.gif" if option == "--out" else "out.json"
        assert_one_line_error(*run_cli(capsys, *argv, str(tmp_path / name)), option,
                              f"folder {tmp_path} is not writable")
    assert list(tmp_path.iterdir()) == []


def test_an_existing_output_that_cannot_be_opened_fails_before_the_work(tmp_path, monkeypatch):
    import allfives_env.arena.outputs as outputs

    (tmp_path / "old.json").write_text("kept")

    def refuse(*args, **kwargs):
        raise PermissionError(1, "Operation not permitted")

    monkeypatch.setattr(outputs, "open", refuse, raising=False)
    with pytest.raises(ValueError, match=r"--json .*old.json exists and is not writable \(Operation not permitted\)"):
        outputs.check_output_file(str(tmp_path / "old.json"), "--json")
    assert (tmp_path / "old.json").read_text() == "kept"


def test_the_write_check_leaves_nothing_behind(tmp_path):
    from allfives_env.arena.outputs import check_output_file

    (tmp_path / "old.json").write_text("kept")
    assert check_output_file(str(tmp_path / "out.json"), "--json") == str(tmp_path / "out.json")
    assert check_output_file(str(tmp_path / "old.json"), "--json") == str(tmp_path / "old.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]
    assert (tmp_path / "old.json").read_text() == "kept"


def test_a_named_pipe_or_a_device_is_accepted_without_being_opened(tmp_path):
    """Opening a pipe with no reader blocks: the check runs in a daemon thread, so a regression fails
    the test after 10 s instead of hanging the suite."""
    import threading

    from allfives_env.arena.outputs import check_output_file

    pipe = str(tmp_path / "results.pipe")
    os.mkfifo(pipe)
    answers = []
    for path in (pipe, os.devnull):
        worker = threading.Thread(target=lambda p=path: answers.append(check_output_file(p, "--json")), daemon=True)
        worker.start()
        worker.join(10)
        assert not worker.is_alive(), f"check_output_file({path!r}) blocked"
    assert answers == [pipe, os.devnull]


@pytest.mark.parametrize("argv", [
    ["eval", "--players", "2", "--agents", "ppo:checkpoints/ppo_2p.pt", "greedy", "--games", "2"],
    ["train", "--config", "configs/ppo_2p.yaml", "--run-dir", "{tmp}/run"],
    ["exploit", "greedy", "--players", "2", "--run-dir", "{tmp}/br"],
])
def test_a_command_needing_the_train_extra_says_how_to_install_it(capsys, monkeypatch, tmp_path, argv):
    monkeypatch.setitem(sys.modules, "torch", None)  # as if only the env were installed (pip install -e .)
    monkeypatch.setattr("allfives_env.agents.ppo.agent._LOADED", {})  # no file read by an earlier test
    status, out, err = run_cli(capsys, *[a.replace("{tmp}", str(tmp_path)) for a in argv])
    assert_one_line_error(status, out, err, "needs", "torch", 'pip install -e ".[train]"')
    assert not list(tmp_path.iterdir())


def test_a_missing_module_that_no_extra_installs_is_not_hidden(capsys, monkeypatch):
    def broken(args):
        import allfives_env.no_such_module  # noqa: F401

    import allfives_env.cli as cli

    add, _, help_text = cli.SUBCOMMANDS["eval"]
    monkeypatch.setitem(cli.SUBCOMMANDS, "eval", (add, broken, help_text))
    with pytest.raises(ModuleNotFoundError):
        main(["eval", "--players", "2", *AGENTS, "--games", "1"])


def test_an_output_over_python_source_is_refused_and_the_source_kept(capsys, no_work, tmp_path, monkeypatch):
    """--json over the module of a module:Class agent (or any .py, such as the script being run) replaced
    the code with the results (status 0), where policy files were refused."""
    (tmp_path / "my_bots.py").write_text("from allfives_env.agents.greedy import GreedyAgent as Bot\n")
    (tmp_path / "notes.py").write_text("# a script\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for output, words in [("my_bots.py", "is the file that agent 'my_bots:Bot' reads"),
                          ("notes.py", "is Python source (.py: an agent's or a script's code)")]:
        target = tmp_path / output
        before = target.read_text()
        line = assert_one_line_error(*run_cli(capsys, "eval", "--players", "2", "--agents", "my_bots:Bot", "random",
                                              "--games", "2", "--json", str(target)), words, "is kept)")
        assert str(target) in line and target.read_text() == before
