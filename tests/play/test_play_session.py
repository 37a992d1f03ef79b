"""`allfives play` driven through its standard input: scripted moves, forced
draws, bad input, quitting and end of file; the narrator's sentences."""

import io
import json
import os
import subprocess
import sys

import numpy as np
import pytest

from allfives_env.agents.registry import make_agent
from allfives_env.play import (
    QUIT,
    ScoreSheet,
    build_screen,
    make_console,
    narrate_turn,
    parse_choice,
    play_seat_specs,
    play_session,
    replay_session,
)
from allfives_env.rules.actions import DRAW, PASS, encode
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.record import replay
from allfives_env.rules.tiles import tile_index as T


def _play(stdin_text, players=2, seed=1, target=60, deal=None, specs=("greedy",), hand_size="standard"):
    config = RulesConfig(num_players=players, target=target, hand_size=hand_size)
    seat_specs = play_seat_specs(players, 0, list(specs))
    agents = [None if s is None else make_agent(s) for s in seat_specs]
    names = ["You"] + [f"player_{s}" for s in range(1, players)]
    out = io.StringIO()
    rc = play_session(config, 0, agents, names, seed, io.StringIO(stdin_text), make_console(out, color=False),
                      deal=deal, echo=True)
    return rc, out.getvalue()


def test_scripted_first_moves_play_a_whole_game_to_the_score_sheet():
    rc, text = _play("1\n" * 400)
    assert rc == 0
    assert "Game over:" in text and "Score sheet" in text
    assert "Your move (1-" in text and "Your hand:" in text
    assert "\x1b[" not in text  # no colour codes when not a terminal


def test_screen_shows_layout_ends_moves_with_scores_sizes_and_boneyard():
    rc, text = _play("1\n2\n", seed=1)
    assert "Open ends: W=" in text and "Count:" in text
    assert "Tiles in hand: You 9, player_1 9 | boneyard 10" in text
    assert "lead [4|6] -> count 10, scores 10" in text  # what each move would score
    assert "You led [0|1]: count 1" in text  # the narrator


def test_bad_input_gets_one_line_and_the_prompt_again_then_eof_ends_cleanly():
    rc, text = _play("abc\n0\n99\n\n")
    assert rc == 0
    assert "'abc' is not a move: type a number from 1 to 9, or q to quit." in text
    assert "0 is not on the list: type a number from 1 to 9" in text
    assert "99 is not on the list" in text
    assert "Nothing typed: type a move number from 1 to 9" in text
    assert text.count("Your move (1-9, q to quit): ") == 5  # asked again after each bad answer
    assert "game stopped" in text and "Score sheet" in text and "in progress" in text


def test_q_quits_with_the_score_sheet():
    rc, text = _play("q\n")
    assert rc == 0 and "You left the game" in text and "Score sheet" in text
    assert "Your moves:" in text


def test_forced_draw_and_pass_are_shown_and_wait_for_enter():
    # Seat 1 leads a tile of 4s, 5s and 6s; seat 0 holds none: it must draw,
    # one confirmed draw at a time (R13); the first two boneyard tiles do not fit.
    hands = [[T(0, 0), T(0, 1), T(0, 2), T(1, 1), T(1, 2)], [T(6, 6), T(5, 5), T(5, 6), T(4, 6), T(4, 5)]]
    dealt = {t for hand in hands for t in hand}
    boneyard = [T(2, 2), T(0, 3)] + [t for t in range(28) if t not in dealt and t not in (T(2, 2), T(0, 3))]
    deal = {"hands": hands, "boneyard": boneyard, "leader": 1}
    rc, text = _play("\n\n", deal=deal, specs=("heuristic",), hand_size="five_each")
    assert "1. draw from the boneyard (no tile fits; 18 left)" in text
    assert "You have no tile that fits: press Enter to draw (q to quit): " in text
    assert "You drew [2|2]" in text and "You drew [2|2], [0|3]" in text  # confirmed draws, narrated
    assert text.count("press Enter to draw") == 3  # three prompts: two confirmed, then end of file


def test_parse_choice():
    moves = [4, 9, 13]
    assert parse_choice("2\n", moves) == 9
    assert parse_choice(" q ", moves) == QUIT
    assert parse_choice("\n", [DRAW]) == DRAW and parse_choice("1", [PASS]) == PASS
    assert parse_choice("4", moves).startswith("! 4 is not on the list")
    assert parse_choice("x", moves).startswith("! 'x' is not a move")


def test_narrator_sentence_for_draws_then_a_scoring_play():
    turn = [(1, DRAW, T(0, 0), 0, 10), (1, DRAW, T(1, 1), 0, 10), (1, encode(T(3, 5), 2), T(3, 5), 15, 15)]
    names = ["You", "player_1"]
    assert narrate_turn(turn, names, reveal=False) == "player_1 drew 2 tiles and played [3|5] on N: count 15, scores 15"
    assert narrate_turn(turn, names) == "player_1 drew [0|0], [1|1] and played [3|5] on N: count 15, scores 15"
    assert narrate_turn([(0, PASS, -1, 0, 7)], names) == "You passed (nothing fits, the boneyard is empty)"


def test_other_seats_draws_are_hidden_from_the_player():
    rc, text = _play("1\n" * 400, players=3, seed=2, target=40)
    for line in text.splitlines():
        if line.strip().startswith("player_") and " drew " in line:
            assert "drew [" not in line, line


def test_seat_specs_for_partners_and_opponents():
    assert play_seat_specs(4, 1, ["greedy"], partner="random") == ["greedy", None, "greedy", "random"]
    assert play_seat_specs(3, 2, ["greedy", "random"]) == ["greedy", "random", None]


def test_screen_builder_and_score_sheet_on_a_fresh_game():
    game = Game(RulesConfig())
    game.start_game(np.random.default_rng(0))
    lines = [line.plain for line in build_screen(game, ["a", "b"], viewer=None)]
    assert "(empty layout: the next play leads)" in lines and any(line.startswith("b holds:") for line in lines)
    sheet = ScoreSheet(2).lines(game, ["a", "b"], unfinished=game)
    assert sheet[-1].split()[:3] == ["1", "in", "progress"]


def test_cli_play_reads_stdin_and_ends_on_eof():
    proc = subprocess.run(
        [sys.executable, "-m", "allfives_env.cli", "play", "--players", "2", "--agents", "random", "--seed", "3",
         "--target", "50"], input="1\nnonsense\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "'nonsense' is not a move" in proc.stdout and "Score sheet" in proc.stdout
    assert "Traceback" not in proc.stderr


def test_cli_play_bad_seat_is_one_line():
    proc = subprocess.run([sys.executable, "-m", "allfives_env.cli", "play", "--seat", "5"], input="",
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "--seat 5 is not a seat" in proc.stderr


def test_ctrl_c_at_the_prompt_ends_cleanly_with_the_score_sheet():
    class Interrupting:
        def readline(self):
            raise KeyboardInterrupt

    out = io.StringIO()
    agents = [None, make_agent("greedy")]
    rc = play_session(RulesConfig(), 0, agents, ["You", "p1"], 1, Interrupting(), make_console(out, color=False))
    assert rc == 0 and "You left the game" in out.getvalue() and "Score sheet" in out.getvalue()


BRITTLE_AGENT = '''
class Brittle:
    """The first legal action, then a failure at its fifth choice."""
    def reset(self, seat, config, rng):
        self.calls = 0

    def act(self, view, legal_actions):
        self.calls += 1
        if self.calls == 5:
            raise RuntimeError("lost its model")
        return legal_actions[0]
'''


def _real_choices(record, seat):
    """How many real choices (more than one legal action) ``seat`` made in ``record``, replayed."""
    made, before = 0, None

    def count(hand_index, game, action):
        nonlocal made, before
        made += action is not None and before == (seat, True)
        before = None if game.hand_over else (game.to_move, len(game.legal_actions()) > 1)

    replay(record, count)
    return made


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("command", ["play", "watch"])
def test_an_agent_that_fails_mid_game_ends_it_in_one_line_and_the_game_so_far_is_kept(tmp_path, command, players):
    (tmp_path / "brittle.py").write_text(BRITTLE_AGENT)
    records = tmp_path / "games.jsonl"
    agents = ["brittle:Brittle"] if command == "play" else ["brittle:Brittle", "greedy"]
    extra = ["--delay", "0"] if command == "watch" else []
    proc = subprocess.run(
        [sys.executable, "-m", "allfives_env.cli", command, "--players", str(players), "--agents", *agents,
         "--seed", "4", "--record", str(records), *extra], input="1\n" * 50, capture_output=True, text=True,
        timeout=120, cwd=tmp_path, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "brittle:Brittle)' (seat " in lines[0]
    assert "failed in act(): RuntimeError: lost its model" in lines[0]
    stopped = proc.stdout[proc.stdout.rindex("All Fives - game stopped"):]
    assert "An agent failed (the error follows); here is the score sheet so far." in stopped
    if command == "play":  # the moves since the person's last screen are shown, not dropped (watch shows every turn)
        assert "What happened:" in stopped
    (record,) = [json.loads(line) for line in records.read_text().splitlines()]
    assert record["unfinished"] is True
    failed_seat = int(lines[0].split("(seat ")[1].split(")")[0])
    assert _real_choices(record, failed_seat) == 4  # the record stops at the failure: its four choices, no more
    out = io.StringIO()
    assert replay_session(record, io.StringIO("e\n"), make_console(out, color=False)) == 0
    # the terminal replay says the game was left unfinished, as the browser's does (it said "final scores")
    assert "the game was stopped unfinished in hand " in out.getvalue() and "final scores" not in out.getvalue()


def test_an_agent_failure_is_still_the_error_when_its_game_cannot_be_recorded(tmp_path, monkeypatch):
    """A record that cannot be written is said on the screen; the agent's failure is what is raised."""
    from allfives_env.arena.game import AgentError
    from allfives_env.play import sessions

    def full_disk(path, table, seats):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(sessions, "_write_record", full_disk)
    exec(BRITTLE_AGENT, namespace := {})
    out = io.StringIO()
    with pytest.raises(AgentError, match="lost its model"):
        sessions.watch_session(RulesConfig(), [namespace["Brittle"](), make_agent("greedy")], ["a", "b"], 4,
                               make_console(out, color=False), record_path=str(tmp_path / "g.jsonl"))
    assert "could not be recorded" in out.getvalue() and "No space left on device" in out.getvalue()
