"""The one game-record format: written while playing, read as data with one-line errors, replayed and checked."""

import copy
import json

import numpy as np
import pytest

from allfives_env.rules import GameRecorder, RulesConfig, read_records, replay, write_records
from allfives_env.rules.game import Game

# Written by the terminal's `watch --record` before the format had its own module: old records must still load.
OLD_RECORD = (
    '{"config": {"num_players": 2, "hand_size": "standard", "target": 80, "first_leader": "random", '
    '"hand_scoring": "bonus", "divisor": 5}, "deal_seed": [7], "hands": [{"hands": [[3, 4, 13, 14, 18, 19, 23, '
    '26, 27], [0, 1, 7, 8, 10, 12, 17, 22, 24]], "boneyard": [15, 6, 16, 20, 5, 11, 25, 2, 21, 9], "leader": 1, '
    '"actions": [96, 109, 88, 76, 49, 106, 29, 94, 71, 56, 33, 52, 42, 112, 60, 6, 16, 0], "scores_after": '
    '[25.0, 60.0]}, {"hands": [[0, 2, 6, 7, 10, 18, 20, 22, 24], [4, 8, 12, 14, 16, 17, 19, 25, 27]], '
    '"boneyard": [21, 23, 11, 15, 13, 5, 1, 26, 9, 3], "leader": 1, "actions": [100, 80, 65, 72, 69, 97, 76, 40, '
    '48], "scores_after": [40.0, 85.0]}], "scores": [40.0, 85.0], "winners": [1], "seats": ["greedy", "heuristic"]}'
)


def _recorded_game(config, seed, stop_after=None, stop_between_hands=False, hand_ends=None):
    """A game of first-legal moves on seeded deals and its record; ``stop_after`` steps, or
    ``stop_between_hands`` at the first hand's end, leaves it unfinished. ``hand_ends`` (a list) gets
    the scores after each finished hand."""
    rng = np.random.default_rng(seed)
    game = Game(config)
    game.start_game(rng)
    recorder = GameRecorder(game)
    recorder.hand_dealt()
    steps = 0
    while not game.game_over and steps != stop_after:
        if game.hand_over:
            if stop_between_hands:
                break
            game.start_next_hand(rng)
            recorder.hand_dealt()
            continue
        action = game.legal_actions()[-1]
        game.step(action)
        recorder.stepped(action)
        steps += 1
        if game.hand_over and hand_ends is not None:
            hand_ends.append(list(game.scores))
    return game, recorder.record([seed], seats=["a"] * config.num_players)


def _write(tmp_path, *lines):
    path = tmp_path / "games.jsonl"
    path.write_text("".join(line + "\n" for line in lines))
    return path


@pytest.mark.parametrize("rules", [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
    {"num_players": 2, "first_leader": "heaviest_tile", "hand_scoring": "penalty", "target": 150},
    {"num_players": 3, "divisor": 3, "hand_size": "five_each", "target": 100},
])
def test_a_written_record_reads_back_and_replays_to_its_scores(rules, tmp_path):
    config = RulesConfig(**rules)
    games = [_recorded_game(config, seed) for seed in range(4)]
    path = tmp_path / "games.jsonl"
    write_records(path, [record for _, record in games])
    for (game, _), record in zip(games, read_records(path)):
        replayed = replay(record)
        assert replayed.game_over and replayed.scores == game.scores and replayed.winners == game.winners
        assert len(record["hands"]) == game.hand_number + 1
        assert set(record) == {"config", "deal_seed", "hands", "scores", "winners", "seats"}


def test_an_old_record_still_loads_and_replays(tmp_path):
    (record,) = read_records(_write(tmp_path, OLD_RECORD))
    game = replay(record)
    assert game.game_over and game.scores == [40.0, 85.0] and game.winners == (1,)


def test_an_unfinished_game_is_marked_and_replays(tmp_path):
    game, record = _recorded_game(RulesConfig(num_players=3), seed=1, stop_after=30)
    assert record["unfinished"] is True and record["winners"] == []
    assert "scores_after" not in record["hands"][-1]
    assert replay(record).scores == game.scores
    del record["unfinished"]
    with pytest.raises(ValueError, match="not marked unfinished"):
        replay(record)


def test_replay_reports_every_position_to_an_observer():
    game, record = _recorded_game(RulesConfig(), seed=2)
    seen = []
    replay(record, lambda hand, position, action: seen.append((hand, action)))
    assert seen[0] == (0, None)
    for k, hand in enumerate(record["hands"]):
        assert [a for h, a in seen if h == k] == [None, *hand["actions"]]


def test_blank_lines_are_skipped_and_an_empty_file_holds_no_records(tmp_path):
    assert len(read_records(_write(tmp_path, "", OLD_RECORD, "  ", OLD_RECORD))) == 2
    assert read_records(_write(tmp_path)) == []


@pytest.mark.parametrize("line, words", [
    ('{"config": ', "line 2: not valid JSON"),
    ("[1, 2]", "line 2: a game record is a JSON object, not [1, 2]"),
    ('{"hands": [], "scores": [], "winners": []}', "line 2: 'config' is missing"),
    ('{"config": {}, "hands": [], "scores": [0], "winners": []}', "'hands' is []; expected a non-empty list"),
    ('{"config": {}, "hands": [{}], "scores": [0], "winners": []}', "line 2: hand 1: 'hands' is missing"),
    ('{"config": {}, "scores": ["x"], "winners": [], "hands": [{"hands": [[1]], "boneyard": [], "leader": 0, '
     '"actions": []}]}', "'scores' is [\"x\"]; expected a list of numbers"),
    ('{"config": {}, "scores": [0], "winners": [], "hands": [{"hands": [[1]], "boneyard": [], "leader": true, '
     '"actions": []}]}', "hand 1: 'leader' is true; expected a seat number"),
    ('{"config": {}, "scores": [0], "winners": [], "hands": [{"hands": [[1]], "boneyard": [], "leader": 0, '
     '"actions": [1.5]}]}', "hand 1: 'actions' is [1.5]; expected a list of action ids"),
    ('{"config": {}, "scores": [0], "winners": [], "hands": [{"hands": [[1]], "boneyard": [], "leader": 0, '
     '"actions": [], "scores_after": {}}]}', "hand 1: 'scores_after' is {}"),
])
def test_a_malformed_line_is_one_value_error_naming_file_and_line(line, words, tmp_path):
    path = _write(tmp_path, OLD_RECORD, line)
    with pytest.raises(ValueError) as info:
        read_records(path)
    message = str(info.value)
    assert message.startswith(f"{path}, line 2: ") and words in message and "\n" not in message


def _broken(change):
    record = json.loads(OLD_RECORD)
    change(record)
    return record


def _put(value, *path):
    """A change that sets the item at ``path`` (keys and indexes) to ``value``."""
    def change(record):
        *parents, last = path
        for key in parents:
            record = record[key]
        record[last] = value
    return change


def _move_a_boneyard_tile_to_seat_0(record):
    hand = record["hands"][1]
    hand["hands"][0].append(hand["boneyard"].pop())


@pytest.mark.parametrize("change, words", [
    (_put(5, "config", "num_players"), "the record's rules are not valid: num_players=5"),
    (_put(4 * 27, "hands", 0, "actions", 2), "hand 1, step 3: the recorded action [6|6]@W is not legal"),
    (_put(999, "hands", 0, "actions", 2), "hand 1, step 3: the recorded action 999 is not legal"),
    (lambda r: r["hands"][0]["actions"].append(0), "hand 1, step 19: the recorded action [0|0]@W is not legal; "
                                                   "legal: none"),
    (_move_a_boneyard_tile_to_seat_0, "hand 2: hand of seat 0 has 10 tiles"),
    (_put(0, "hands", 1, "boneyard", 0), "hand 2: the deal must hold all 28 tiles exactly once"),
    (_put(0, "hands", 1, "leader"), "hand 2: leader=0, but seat 1 dominoed the last hand and leads the next (R19)"),
    (lambda r: r["hands"][0]["actions"].pop(), "hand 1: the recorded actions stop before the hand ends"),
    (lambda r: r["hands"].append(copy.deepcopy(r["hands"][1])), "hand 2 ends the game, but the record goes on"),
    (_put([25, 65], "hands", 0, "scores_after"), "hand 1 replays to scores [25.0, 60.0] but the record says [25, 65]"),
    (_put([40, 90], "scores"), "the game replays to scores [40.0, 85.0] but the record says [40, 90]"),
    (_put([0], "winners"), "the game replays to winners [1] but the record says [0]"),
    (lambda r: r.pop("winners"), "'winners' is missing"),
    (_put(["a"], "seats"), "'seats' names 1 seat(s) for a 2-player game; expected one text per seat"),
])
def test_replay_refuses_a_record_that_does_not_check(change, words):
    with pytest.raises(ValueError) as info:
        replay(_broken(change))
    assert words in str(info.value)


def test_every_finished_hand_records_its_scores_after():
    """Every finished hand of a record carries the scores after it, not only the last hand."""
    for seed in range(4):
        ends = []
        _, record = _recorded_game(RulesConfig(num_players=2), seed, hand_ends=ends)
        assert len(record["hands"]) >= 2
        assert [hand["scores_after"] for hand in record["hands"]] == ends


def test_a_game_stopped_between_hands_is_marked_unfinished_and_replays():
    """A game stopped between hands is marked unfinished, with no winners, and replays to its scores."""
    game, record = _recorded_game(RulesConfig(num_players=2), 0, stop_between_hands=True)
    assert game.hand_over and not game.game_over
    assert record["unfinished"] is True and record["winners"] == []
    assert replay(record).scores == game.scores
