"""`allfives watch`, `allfives replay` and `allfives record` smoke runs; the rgb_array image."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from support import random_states

import allfives_env
from allfives_env.arena import run_match
from allfives_env.env.render.image import IMAGE_SIZE, _status_line, layout_boxes
from allfives_env.play import load_record, make_console, replay_session, watch_seat_specs
from allfives_env.rules.config import RulesConfig


def _cli(*args, stdin=""):
    return subprocess.run([sys.executable, "-m", "allfives_env.cli", *args], input=stdin, capture_output=True,
                          text=True, timeout=180)


def test_watch_is_reproducible_from_its_seed_and_writes_a_record(tmp_path):
    rec = tmp_path / "w.jsonl"
    args = ("watch", "--players", "4", "--agents", "greedy", "heuristic", "--seed", "4", "--target", "40", "--delay", "0")
    first, second = _cli(*args, "--record", str(rec)), _cli(*args)
    assert first.returncode == 0, first.stderr
    assert first.stdout == second.stdout
    assert "Game over:" in first.stdout and "Score sheet" in first.stdout
    assert "player_1 (heuristic) holds:" in first.stdout  # spectators see every hand
    record = json.loads(rec.read_text())
    assert record["seats"] == ["greedy", "heuristic", "greedy", "heuristic"]
    out = io.StringIO()
    assert replay_session(record, io.StringIO("e\n"), make_console(out, color=False)) == 0
    assert "replay to the recorded scores" in out.getvalue()
    rec.write_text(rec.read_text().rstrip("\n"))  # a last line without its newline, as an editor may leave it
    assert _cli(*args, "--record", str(rec)).returncode == 0  # a second game is added, the first kept
    assert [json.loads(line) for line in rec.read_text().splitlines()] == [record, record]


def test_a_record_goes_to_a_named_pipe(tmp_path):
    """A pipe cannot seek: the record is written in plain append mode (was an error after the game)."""
    import threading

    pipe = tmp_path / "records.pipe"
    os.mkfifo(pipe)
    received = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()), daemon=True)
    reader.start()
    proc = _cli("watch", "--players", "2", "--agents", "greedy", "--delay", "0", "--target", "40",
                "--record", str(pipe))
    reader.join(30)
    assert proc.returncode == 0, proc.stderr
    (line,) = received[0].splitlines()
    assert json.loads(line)["seats"] == ["greedy", "greedy"]


def test_a_record_option_naming_a_file_of_something_else_is_refused_before_the_game(tmp_path):
    results = tmp_path / "results.json"
    results.write_text('{"games": 2000}\n')
    proc = _cli("watch", "--players", "2", "--agents", "greedy", "--delay", "0", "--record", str(results))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert f"--record {results} holds something other than game records" in line and "Game over" not in proc.stdout
    assert results.read_text() == '{"games": 2000}\n'


def test_replay_of_an_arena_record_steps_forward_back_and_jumps(tmp_path):
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=3, target=60), ["greedy", "random", "heuristic"], 3, seed=2, records_path=path)
    proc = _cli("replay", str(path), "--game", "2", stdin="n\n\nb\nh 2\nzz\ne\nn\nq\n")
    assert proc.returncode == 0, proc.stderr
    text = proc.stdout
    assert "Record check passed: " in text and "hand(s) replay to the recorded scores" in text and "final scores" in text
    assert "step 2 (position 3/" in text and "step 1 (position 2/" in text
    assert "Replay - hand 2/" in text and "'zz' is not a replay command" in text
    assert "Already at the end" in text


def test_replay_shows_a_records_control_characters_escaped(tmp_path):
    """A record is someone's file: its seat names reached the terminal raw (clear the screen, retitle it)."""
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=2, target=30), ["greedy", "random"], 1, seed=2, records_path=path)
    record = json.loads(path.read_text().splitlines()[0])
    record["seats"] = ["evil\x1b[2J\x1b]0;pwned\x07", "ok"]
    path.write_text(json.dumps(record) + "\n")
    out = io.StringIO()
    assert replay_session(load_record(str(path), 0), io.StringIO("q\n"), make_console(out, color=False)) == 0
    text = out.getvalue()
    assert "\x1b" not in text and "\x07" not in text
    assert "player_0 (evil\\x1b[2J\\x1b]0;pwned\\x07)" in text


def test_replay_reports_a_record_that_does_not_match_its_scores(tmp_path):
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=2, target=60), ["greedy", "random"], 2, seed=0, records_path=path)
    record = load_record(path, 0)
    record["scores"] = [s + 5 for s in record["scores"]]
    with pytest.raises(ValueError, match="Record check failed: the game replays to scores"):
        replay_session(record, io.StringIO(""), make_console(io.StringIO(), color=False))
    bad = _cli("replay", str(path), "--game", "7")
    assert bad.returncode == 2 and "out of range" in bad.stderr


@pytest.mark.parametrize("spoil, words", [
    (lambda line: line[:40], "line 2: not valid JSON"),
    (lambda line: line.replace('"leader"', '"lead"', 1), "line 2: hand 1: 'leader' is missing"),
])
def test_replay_of_a_malformed_record_file_is_one_line_naming_file_and_line(spoil, words, tmp_path):
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=2, target=60), ["greedy", "random"], 2, seed=0, records_path=path)
    first, second = path.read_text().splitlines()
    path.write_text(f"{first}\n{spoil(second)}\n")
    proc = _cli("replay", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert f"{path}, {words}" in line


def test_replay_reports_an_illegal_recorded_action(tmp_path):
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=2, target=60), ["greedy", "random"], 2, seed=0, records_path=path)
    record = load_record(path, 1)
    record["hands"][0]["actions"][1] = record["hands"][0]["actions"][0]  # the tile just led, again
    with pytest.raises(ValueError, match="Record check failed: hand 1, step 2: the recorded action"):
        replay_session(record, io.StringIO(""), make_console(io.StringIO(), color=False))


def test_watch_seat_specs():
    assert watch_seat_specs(4, ["a", "b"]) == ["a", "b", "a", "b"]
    assert watch_seat_specs(3, ["a"]) == ["a", "a", "a"]
    with pytest.raises(ValueError, match="one per side"):
        watch_seat_specs(3, ["a", "b"])


def test_rgb_array_has_the_documented_size_and_changes_when_a_tile_is_played():
    env = allfives_env.env(num_players=2, render_mode="rgb_array")
    assert "rgb_array" in env.metadata["render_modes"]
    env.reset(seed=3)
    before = env.render()
    assert before.shape == (IMAGE_SIZE, IMAGE_SIZE, 3) and before.dtype == np.uint8
    for _ in range(12):  # a lead, then plays that grow the arms (and likely open the spinner's branches)
        obs, *_ = env.last()
        mask = obs["action_mask"]
        prev = env.render()
        action = int(np.flatnonzero(mask)[0])
        env.step(action)
        after = env.render()
        if action < 112:
            assert not np.array_equal(prev, after)
    assert not np.array_equal(before, after)


def test_record_writes_an_animated_gif(tmp_path):
    from PIL import Image

    out = tmp_path / "game.gif"
    proc = _cli("record", "--players", "2", "--agents", "greedy", "random", "--seed", "1", "--target", "30",
                "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    with Image.open(out) as gif:
        assert gif.size == (IMAGE_SIZE, IMAGE_SIZE) and gif.n_frames > 3


def test_record_keeps_the_frames_up_to_an_agents_failure(tmp_path):
    from PIL import Image

    (tmp_path / "brittle.py").write_text(
        "class Brittle:\n"
        "    def reset(self, seat, config, rng):\n        self.calls = 0\n"
        "    def act(self, view, legal_actions):\n        self.calls += 1\n"
        "        if self.calls == 5:\n            raise RuntimeError('lost its model')\n"
        "        return legal_actions[0]\n")
    out = tmp_path / "game.gif"
    proc = subprocess.run([sys.executable, "-m", "allfives_env.cli", "record", "--players", "2", "--agents",
                           "brittle:Brittle", "greedy", "--seed", "1", "--out", str(out)], capture_output=True,
                          text=True, timeout=180, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 1 and len(proc.stderr.strip().splitlines()) == 1
    assert "failed in act(): RuntimeError: lost its model" in proc.stderr
    assert "(the game up to an agent's failure) written to" in proc.stdout
    with Image.open(out) as gif:
        assert gif.n_frames >= 9  # the first screen and the eight placements before the failure, at least


def test_replay_refuses_a_hand_past_the_last_and_a_game_past_the_file(tmp_path):
    """Replay's ``h K`` past the last hand and ``--game`` past the file's games are refused in one line."""
    from allfives_env.play.replay import _replay_command, load_record
    from allfives_env.rules import GameRecorder, RulesConfig, write_records
    from allfives_env.rules.game import Game

    assert _replay_command("h 3", 0, 20, [0, 10]).startswith("Give a hand number from 1 to 2")
    assert _replay_command("h 2", 0, 20, [0, 10]) == 10
    game = Game(RulesConfig(num_players=2))
    game.start_game(np.random.default_rng(0))
    recorder = GameRecorder(game)
    recorder.hand_dealt()
    path = tmp_path / "one.jsonl"
    write_records(path, [recorder.record([0])])
    assert load_record(path, 0)["deal_seed"] == [0]
    with pytest.raises(ValueError, match="--game 2 is out of range"):
        load_record(path, 1)


def _touching_pairs(boxes, axis):
    """Pairs (a, b) of boxes where b starts where a ends along ``axis`` (0: x, the row; 1: y, a column)."""
    lo, hi = (1, 3) if axis == 0 else (2, 4)
    return [(a, b) for a in boxes for b in boxes if a is not b and abs(a[hi] - b[lo]) < 1e-9
            and _overlap(a, b, axis)]


def _overlap(a, b, axis):
    lo, hi = (2, 4) if axis == 0 else (1, 3)  # the other axis' extent
    return min(a[hi], b[hi]) - max(a[lo], b[lo]) > 1e-9


@pytest.mark.parametrize("players", [2, 4])
def test_neighbouring_tiles_show_matching_halves_on_every_arm(players):
    """R7: an attached tile's matching half touches the end it was played on, on the W arm as on the others:
    in the image a box's right (lower) half equals its right-hand (lower) neighbour's left (upper) half.
    Catches (image.py layout_boxes: the W arm's ``outer, inner`` halves swapped)."""
    pairs = 0
    for game, _ in random_states(players, games=2, seed=30 + players):
        boxes, _ = layout_boxes(game)
        for axis in (0, 1):
            for a, b in _touching_pairs(boxes, axis):
                assert a[6] == b[5], (axis, a, b)
                pairs += 1
    assert pairs > 200


def test_the_status_line_counts_hands_from_1():
    """Hands are numbered from 1, as the terminal and the web page number them ("Hand 1 is dealt").
    Catches (image.py _status_line: ``hand_number + 1`` -> ``hand_number``)."""
    for game, _ in random_states(2, games=1, seed=2):
        line = _status_line(game, None)
        assert line.startswith(f"Hand {game.hand_number + 1}   count {game.count}   ")
        assert f"to move: player_{game.to_move}" in line
