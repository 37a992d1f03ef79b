"""Terminal screens (issue 23): every line fits the console and no tile is split,
the end of a hand is shown with its scoring before the next deal, clear wording,
and every wrong answer at a prompt gets one line and the prompt again."""

import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest

from allfives_env.agents.registry import make_agent
from allfives_env.env.render.text import layout_lines, render_text
from allfives_env.play import (
    QUIT,
    make_console,
    parse_choice,
    play_seat_specs,
    play_session,
    replay_session,
    watch_seat_specs,
    watch_session,
)
from allfives_env.play.narrate import lead_sentence, narrate_hand_end, winner_sentence
from allfives_env.play.prompt import prompt_text
from allfives_env.play.table import Table
from allfives_env.play.wrap import fit_text
from allfives_env.rules.actions import DRAW, PASS, encode
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.tiles import tile_index as T

SPLIT_TILE = re.compile(r"\[[^\]]*$|^[^\[]*\]")  # a "[" left open at the end, or a "]" closing at the start


def _assert_fits(text, width):
    for line in text.splitlines():
        assert len(line) <= width, f"{len(line)} > {width}: {line!r}"
        assert not SPLIT_TILE.search(line), f"a tile split across lines: {line!r}"


def _watch(players, width, seed=1, target=None, delay=0.0, sleep=lambda s: None):
    specs = watch_seat_specs(players, ["greedy", "heuristic"] if players != 3 else ["heuristic"])
    names = [f"player_{s} ({spec})" for s, spec in enumerate(specs)]
    config = RulesConfig(num_players=players, **({"target": target} if target else {}))
    out = io.StringIO()
    watch_session(config, [make_agent(s) for s in specs], names, seed, make_console(out, color=False, width=width),
                  delay=delay, sleep=sleep)
    return out.getvalue()


def _play(stdin_text, players=2, width=80, seed=1, target=None):
    specs = play_seat_specs(players, 0, ["greedy"])
    agents = [None if s is None else make_agent(s) for s in specs]
    names = ["You (player_0)"] + [f"player_{s} (greedy)" for s in range(1, players)]
    config = RulesConfig(num_players=players, **({"target": target} if target else {}))
    out = io.StringIO()
    rc = play_session(config, 0, agents, names, seed, io.StringIO(stdin_text),
                      make_console(out, color=False, width=width), echo=True)
    return rc, out.getvalue()


# ------------------------------------------------------------------ 1. the console's width
@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("width", [60, 80, 100, 160])
def test_a_whole_watched_game_fits_the_width_and_never_splits_a_tile(players, width):
    text = _watch(players, width, seed=players)
    assert "Game over:" in text and "Score sheet" in text
    _assert_fits(text, width)


def test_a_narrow_screen_draws_the_layout_one_line_per_arm_and_a_wide_one_the_cross():
    narrow, wide = _watch(2, 60, seed=1), _watch(2, 160, seed=1)
    assert "Layout arm by arm, from the lead" in narrow
    assert re.search(r"^  W: \[", narrow, re.M) and re.search(r"  open \d", narrow)
    assert re.search(r"^W\(\d(x2)?\) \[", wide, re.M)
    assert wide.count("Layout arm by arm") < narrow.count("Layout arm by arm")


@pytest.mark.parametrize("width", [60, 100])
def test_a_played_game_with_wrong_answers_fits_the_width(width):
    rc, text = _play("abc\n0\n[6|6]\n" + "1\n" * 400, players=3, width=width, seed=2)
    assert rc == 0 and "Score sheet" in text
    _assert_fits(text, width)


def test_wrapping_breaks_at_spaces_keeps_tiles_and_styles_and_indents_what_follows():
    lines = fit_text("  player_1 drew [0|0], [1|1] and played [3|5] on N: count 15, scores 15", 24)
    plain = [line.plain for line in lines]
    assert plain[0] == "  player_1 drew [0|0],"
    assert all(len(p) <= 24 and p.startswith("    ") for p in plain[1:])
    assert " ".join(p.strip() for p in plain) == "player_1 drew [0|0], [1|1] and played [3|5] on N: count 15, scores 15"


def test_a_word_far_longer_than_the_width_is_cut_into_pieces_that_fit():
    """A 100,000-character name at width 10 is 10,000 pieces (it was a RecursionError)."""
    lines = fit_text("seat " + "x" * 100_000 + " played", 10)
    plain = [line.plain for line in lines]
    assert all(len(p) <= 10 for p in plain)
    assert "".join(p.replace(" ", "") for p in plain) == "seat" + "x" * 100_000 + "played"


def test_the_cli_fits_the_terminal_columns():
    env = {**os.environ, "COLUMNS": "64"}
    proc = subprocess.run([sys.executable, "-m", "allfives_env.cli", "watch", "--players", "4", "--agents", "greedy",
                           "--seed", "2", "--delay", "0"], capture_output=True, text=True, timeout=180, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    _assert_fits(proc.stdout, 64)


# ------------------------------------------------------------------ 2. the end of a hand
def _lines_before_pause(text):
    """How many answers the person gave before the first hand ended (each echoed after its prompt)."""
    head = text[:text.index("Press Enter to deal hand 2")]
    return sum(1 for line in head.splitlines() if line.endswith(": 1"))


def test_play_shows_the_ended_hand_and_its_scoring_then_waits_for_enter_before_the_next_deal():
    rc, text = _play("1\n" * 400)
    over, pause = text.index("All Fives - hand 1 is over"), text.index("Press Enter to deal hand 2 (q to quit): ")
    dealt = text.index("Hand 2 is dealt")
    assert over < pause < dealt
    summary = text[over:pause]
    assert "Hand 1 over by a domino:" in summary or "Hand 1 blocked:" in summary
    assert "Pips left:" in summary and "Scores after hand 1: You (player_0) " in summary
    assert "the hand" in summary or "Tied for the fewest pips" in summary  # who won it, and the bonus
    assert "player_1 (greedy) holds:" in summary  # the final position shows every hand left
    assert "Your move" not in summary


@pytest.mark.parametrize("answer, stops", [("\n", False), ("q\n", True), ("", True)])
def test_the_pause_after_a_hand_goes_on_with_enter_and_stops_on_q_or_end_of_file(answer, stops):
    k = _lines_before_pause(_play("1\n" * 400)[1])
    rc, text = _play("1\n" * k + answer + ("1\n" * 3 if answer else ""))
    assert rc == 0 and "Press Enter to deal hand 2" in text
    assert ("Hand 2 is dealt" in text) != stops
    if stops:
        assert "game stopped" in text and "Score sheet" in text and "Traceback" not in text


def test_watch_shows_each_hand_end_and_pauses_longer_there():
    pauses = []
    text = _watch(2, 100, seed=1, delay=0.5, sleep=pauses.append)
    hands_over = text.count("is over\n")
    assert hands_over >= 1 and text.count("Scores after hand") >= hands_over
    assert pauses.count(2.0) == hands_over and set(pauses) == {0.5, 2.0}
    first_end = text.index("All Fives - hand 1 is over")
    assert first_end < text.index("Hand 2 is dealt")


def test_replay_marks_the_hand_end_position_and_shows_its_scoring():
    table = Table(RulesConfig(num_players=2, target=80), [make_agent("greedy"), make_agent("heuristic")], ["a", "b"], 3)
    while not table.game.game_over:
        table.next_hand() if table.game.hand_over else table.step(table.agent_action())
    record = table.record(["greedy", "heuristic"])
    out = io.StringIO()
    steps = "n\n" * len(record["hands"][0]["actions"])  # to the end of hand 1
    assert replay_session(record, io.StringIO(steps + "q\n"),
                          make_console(out, color=False, width=80), echo=True) == 0
    text = out.getvalue()
    assert "- hand over" in text and "Scores after hand 1:" in text
    _assert_fits(text, 80)


# ------------------------------------------------------------------ 3. wording
def _lone_spinner():
    game = Game(RulesConfig())
    game.start_game(np.random.default_rng(0))
    game.hands[game.to_move] |= 1 << T(2, 2)  # make sure the leader holds [2|2]
    game.step(encode(T(2, 2), 0))
    return game


def test_the_layout_end_notation_has_no_nested_parentheses():
    game = _lone_spinner()
    assert layout_lines(game) == ["W(2) [2|2]* E(2)"]
    text = render_text(game)
    assert "Open ends: W=2, E=2 (the lone spinner counts once)" in text and "count 4" in text
    assert "((" not in text and "))" not in text


def test_lead_sentence_reads_well_for_you_and_for_others():
    game = Game(RulesConfig(num_players=3))
    game.start_game(np.random.default_rng(0), leader=0)
    assert lead_sentence(game, ["You (player_0)", "b", "c"]) == "Hand 1 is dealt; You (player_0) lead."
    game.start_game(np.random.default_rng(0), leader=1)
    assert lead_sentence(game, ["You (player_0)", "player_1", "c"]) == "Hand 1 is dealt; player_1 leads."


def test_winner_sentence_gives_the_winners_score_first_and_labels_the_others():
    game = Game(RulesConfig(num_players=3, target=100))
    game.start_game(np.random.default_rng(0))
    game.scores, game.game_over, game.winners = [40, 105, 95], True, (1,)
    assert winner_sentence(game, ["a", "b", "c"]) == "Game over: b wins with 105; a 40, c 95."
    four = Game(RulesConfig(num_players=4, target=100))
    four.start_game(np.random.default_rng(0))
    four.scores, four.game_over, four.winners = [100, 85], True, (0,)
    assert winner_sentence(four, ["You", "b", "c", "d"]) == "Game over: You & c win with 100; b & d 85."


def test_one_choice_is_never_asked_as_a_number_from_1_to_1():
    for moves in ([DRAW], [PASS], [encode(T(1, 2), 0)]):
        assert "press Enter" in prompt_text(moves)
        for answer in ("0", "7", "zz"):
            error = parse_choice(answer, moves)
            assert error.startswith("! ") and "1 to 1" not in error and "press Enter (or type 1)" in error


# ------------------------------------------------------------------ 4. wrong answers
MOVES = [encode(T(3, 6), 1), encode(T(4, 6), 1), encode(T(4, 6), 0), DRAW]
HAND = [T(0, 1), T(3, 6), T(4, 6)]


@pytest.mark.parametrize("answer, words", [
    ("", "Nothing typed: type a move number from 1 to 4"),
    ("0", "0 is not on the list"),
    ("5", "5 is not on the list"),
    ("99999999999999999999999", "is not on the list"),
    ("7" * 4301, "'" + "7" * 40 + "'… is not on the list"),  # was int()'s digit-limit error, the game lost
    ("x" * 100_000, "'" + "x" * 40 + "'… is not a move"),  # was quoted whole, 1,250 wrapped lines
    ("٣|٥", "'٣|٥' is not a move"),  # Arabic-Indic digits: a tile, where the same digit was no move number
    ("-1", "'-1' is not a move"),
    ("1.5", "'1.5' is not a move"),
    ("abc", "'abc' is not a move"),
    ("²", "'²' is not a move"),
    ("[2|5]", "You do not hold [2|5]"),
    ("0|1", "[0|1] fits no open end now"),
    ("9|9", "'9|9' is not a tile"),
    ("4|6", "[4|6] fits more than one end: type its number, 2 (E), 3 (W)"),
    ("4|6 n", "[4|6] does not fit on N: type 2 (E), 3 (W)"),
    ("?", "Type a move's number, or a tile you hold"),
])
def test_each_wrong_answer_is_one_clear_line(answer, words):
    error = parse_choice(answer + "\n", MOVES, HAND)
    assert error.startswith("! ") and words in error and "\n" not in error


@pytest.mark.parametrize("answer, expected", [
    ("2", MOVES[1]), (" 4 ", DRAW), ("[3|6]", MOVES[0]), ("6-3", MOVES[0]), ("4|6 w", MOVES[2]),
    ("[4|6] on E", MOVES[1]), ("q", QUIT), ("QUIT", QUIT), ("exit", QUIT),
])
def test_numbers_tiles_and_quit_words_are_understood(answer, expected):
    assert parse_choice(answer, MOVES, HAND) == expected


def test_wrong_answers_at_the_play_prompt_reask_and_end_of_file_stops_cleanly():
    rc, text = _play("\n0\n99\nabc\n[6|6] x\n9|9\nhelp\n")
    assert rc == 0
    assert text.count("Your move (1-9, q to quit): ") == 8  # asked again after each of the 7 wrong answers
    assert "game stopped" in text and "Score sheet" in text and "Traceback" not in text


def test_replay_wrong_commands_reask_and_end_of_file_or_ctrl_c_stop_cleanly(tmp_path):
    table = Table(RulesConfig(num_players=2, target=40), [make_agent("greedy"), make_agent("random")], ["a", "b"], 1)
    while not table.game.game_over:
        table.next_hand() if table.game.hand_over else table.step(table.agent_action())
    record = table.record(["greedy", "random"])
    out = io.StringIO()
    huge = "9" * 5000  # int() refused it: the replay ended with Python's digit-limit error
    commands = f"b\n0\n7\nh\nh 0\nh 99\nh x\nzz\nh {huge}\n{huge}\nexit\n"
    assert replay_session(record, io.StringIO(commands), make_console(out, color=False, width=80), echo=True) == 0
    text = out.getvalue()
    assert "Already at the start" in text and "To jump to hand 7, type 'h 7'" in text
    assert text.count("Give a hand number from 1 to") == 5 and "'zz' is not a replay command" in text
    assert "To jump to hand K, type 'h K'" in text
    assert text.count("replay> ") == 11

    class Interrupting:
        def readline(self):
            raise KeyboardInterrupt

    assert replay_session(record, Interrupting(), make_console(io.StringIO(), color=False)) == 0
    assert replay_session(record, io.StringIO(""), make_console(io.StringIO(), color=False)) == 0


def test_cli_play_with_every_kind_of_wrong_answer_has_no_traceback():
    proc = subprocess.run(
        [sys.executable, "-m", "allfives_env.cli", "play", "--players", "3", "--agents", "random", "--seed", "3"],
        input="\n0\n99\nabc\n[6|6]\n9|9\n?\n" + "1\n" * 30 + "quit\n", capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr and proc.stderr == ""
    assert "You left the game" in proc.stdout and "Score sheet" in proc.stdout


def test_a_penalty_hand_end_says_each_side_pays_even_when_the_pips_round_to_nothing():
    """V4 penalty has no bonus: every hand end reads 'each side pays its pips', also when every side's
    pips round to 0 (it used to say 'wins the hand: the bonus rounds to 0')."""
    from allfives_env.play.narrate import narrate_hand_end

    rng = np.random.default_rng(0)
    config = RulesConfig(num_players=2, hand_scoring="penalty", hand_size="five_each")
    seen = {"zero": 0, "paid": 0}
    for _ in range(200):
        game = Game(config)
        game.start_game(rng)
        while not game.hand_over:
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
        text = " ".join(narrate_hand_end(game, ["you", "rival"]))
        assert "each side pays its pips" in text and "bonus" not in text, text
        seen["zero" if all(p == 0 for p in game.hand_result.points) else "paid"] += 1
    assert seen["zero"] > 0 and seen["paid"] > 0


def test_a_partnership_of_two_others_agrees_in_the_plural():
    """R2: with 4 players a side is two partners: "a & c win", as for "You" (not "a & c wins").
    Catches (narrate.py _verb: ``len(members) > 1`` -> ``> 2``)."""
    four = Game(RulesConfig(num_players=4, target=100))
    four.start_game(np.random.default_rng(0))
    four.scores, four.game_over, four.winners = [100, 85], True, (0,)
    assert winner_sentence(four, ["a", "b", "c", "d"]) == "Game over: a & c win with 100; b & d 85."
    two = Game(RulesConfig(num_players=2, target=100))
    two.start_game(np.random.default_rng(0))
    two.scores, two.game_over, two.winners = [60, 100], True, (1,)
    assert winner_sentence(two, ["a", "b"]) == "Game over: b wins with 100; a 60."


def _blocked_hands(num_players, want, tries=3000):
    """First hands of seeded games (random moves) that end blocked with ``want(result)``."""
    rng = np.random.default_rng(num_players)
    found = []
    for _ in range(tries):
        game = Game(RulesConfig(num_players=num_players, target=1000))
        game.start_game(rng)
        while not game.hand_over:
            legal = game.legal_actions()
            game.step(legal[int(rng.integers(len(legal)))])
        if game.hand_result.kind == "block" and want(game.hand_result):
            found.append(game)
            if len(found) == 3:
                break
    return found


@pytest.mark.parametrize("num_players", [2, 4])
def test_a_tied_block_with_two_sides_says_nobody_wins_and_no_bonus(num_players):
    """R22: a block with the lowest totals tied (2 or 4 players) gives nobody a bonus; nobody "splits" a 0.
    Catches (narrate.py _bonus_sentence: ``p > 0`` -> ``p >= 0``)."""
    games = _blocked_hands(num_players, lambda r: r.winner is None)
    assert games
    names = [f"p{s}" for s in range(num_players)]
    for game in games:
        assert all(p == 0 for p in game.hand_result.points)
        sentences = narrate_hand_end(game, names)
        assert "Tied for the fewest pips: nobody wins the hand, no bonus." in sentences
        assert not any("split" in s for s in sentences)


def test_a_three_player_split_names_only_the_two_tied_players():
    """R23: two of three players tie for the fewest pips and split the third's rounded pips; the third
    player is not among those who split. Catches the same bug."""
    games = _blocked_hands(3, lambda r: r.winner is None and sum(p > 0 for p in r.points) == 2)
    assert games
    for game in games:
        tied = [s for s, p in enumerate(game.hand_result.points) if p > 0]
        (split,) = [s for s in narrate_hand_end(game, ["p0", "p1", "p2"]) if "split" in s]
        half = game.hand_result.points[tied[0]]
        shown = str(int(half)) if half == int(half) else str(half)
        assert split == f"p{tied[0]} and p{tied[1]} tie for the fewest pips and split the bonus: +{shown} each."
