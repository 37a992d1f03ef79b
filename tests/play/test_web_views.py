"""The browser's position data: the layout as the terminal draws it (R8-R11), moves as the engine scores them
(R14, R15), nothing hidden shown to a seated viewer, and replay data checked against the record."""

import json
import re

import numpy as np
import pytest
from support import random_states

from allfives_env.agents.random_agent import RandomAgent
from allfives_env.arena import run_match
from allfives_env.env.render.text import layout_cross
from allfives_env.play.web.games import WAIT_NOTHING, WAIT_PERSON, WebGame
from allfives_env.play.web.replays import records_from_upload, replay_data
from allfives_env.play.web.views import position_view
from allfives_env.rules.actions import DRAW, PASS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.record import read_records, replay
from allfives_env.rules.scoring import points_for_count
from allfives_env.rules.tiles import TILE_LOW, mask_to_tiles, tile_index

TILE_NAME = re.compile(r"\[(\d)\|(\d)\]")


def _names(n):
    return [f"player_{s}" for s in range(n)]


def _cells_text(cells):
    return " ".join(f"[{a}|{b}]" + ("*" if cell["spinner"] else "") for cell in cells for a, b in [cell["pips"]])


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_layout_is_the_terminal_cross_with_matching_halves(players):
    for k, (game, _) in enumerate(random_states(players, 2, seed=players)):
        layout = position_view(game, _names(players))["layout"]
        if layout["empty"]:
            assert game.lead_tile < 0
            continue
        lines = ["".join(text for text, _ in line) for line in layout_cross(game)]
        row_line = next(line for line in lines if line.lstrip().startswith("W("))
        assert _cells_text(layout["row"]) in row_line  # R8: the same arms, the same orientation
        column = [line.strip() for line in lines if line is not row_line and not line.strip().startswith(("N(", "S("))]
        assert column == [_cells_text([cell]) for cell in layout["north"] + layout["south"]]
        row = layout["row"]
        assert all(a["pips"][1] == b["pips"][0] for a, b in zip(row, row[1:]))  # neighbours match
        if layout["spinner"] is not None and game.branches_open:
            spinner_value = row[layout["spinner"]]["pips"][0]
            arm = layout["north"] + [row[layout["spinner"]]] + layout["south"]
            assert all(a["pips"][1] == b["pips"][0] for a, b in zip(arm, arm[1:]))
            assert spinner_value == TILE_LOW[game.spinner_tile]
        ends = {end["slot"]: end for end in layout["ends"]}
        if game.arm_length[0]:
            assert ends["W"]["value"] == row[0]["pips"][0] == game.open_value[0]
        if game.arm_length[1]:
            assert ends["E"]["value"] == row[-1]["pips"][1] == game.open_value[1]
        if k > 300:
            break


def test_moves_are_the_engines_legal_actions_with_what_each_scores():
    seen = set()
    for k, (game, _) in enumerate(random_states(3, 3, seed=7)):
        view = position_view(game, _names(3), viewer=game.to_move)
        assert [m["action"] for m in view["moves"]] == list(game.legal_actions())
        for move in view["moves"]:
            seen.add(move["kind"])
            if move["action"] in (DRAW, PASS):
                continue
            after = game.clone()
            after.step(move["action"])
            assert move["count"] == after.count  # R14
            assert move["points"] == points_for_count(after.count, game.divisor)  # R15
            assert move["tile"] == move["action"] >> 2
        other = position_view(game, _names(3), viewer=(game.to_move + 1) % 3)
        assert other["moves"] == []  # only the seat to move is offered moves
    assert {"lead", "play", "draw"} <= seen


def _tiles_named(value):
    return {tile_index(int(a), int(b)) for a, b in TILE_NAME.findall(json.dumps(value))}


def _web_game(players, seed, human_seat=0, target=80):
    config = RulesConfig(num_players=players, target=target)
    agents = [None if s == human_seat else RandomAgent() for s in range(players)]
    names = [f"You (player_{s})" if s == human_seat else f"player_{s}" for s in range(players)]
    specs = ["human" if s == human_seat else "random" for s in range(players)]
    mode = "watch" if human_seat is None else "play"
    return WebGame("g", mode, config, agents, names, specs, seed, human_seat)


def _play_out(web, rng):
    """Yield the view after every change of a web game played to its end (the person moves at random)."""
    yield web.view()
    while web.waiting_for() != WAIT_NOTHING:
        if web.waiting_for() == WAIT_PERSON:
            legal = web.game.legal_actions()
            web.move(web.version, legal[int(rng.integers(len(legal)))])
        else:
            web.advance(web.version)
        yield web.view()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seated_person_never_sees_a_hidden_tile(players):
    rng = np.random.default_rng(players)
    seat = players - 1
    web = _web_game(players, seed=20 + players, human_seat=seat)
    draws_seen = 0
    for view in _play_out(web, rng):
        game = web.game
        public = {t for t in range(28) if game.played_by[t] >= 0}
        own = set(mask_to_tiles(game.hands[seat]))
        if game.hand_over:
            assert set(view["hands"]) == {str(s) for s in range(players)}  # the hand's end shows every hand
            continue
        assert set(view["hands"]) == {str(seat)}
        assert [t["tile"] for t in view["hands"][str(seat)]] == sorted(own)
        assert _tiles_named(view) <= public | own  # moves, sentences, layout: nothing else is named
        assert isinstance(view["boneyard"], int) and "boneyard_tiles" not in view
        draws_seen += sum(1 for text in view["happened"] if re.search(r"player_\d drew \d tile", text))
    assert draws_seen > 0  # other seats drew, and their tiles stayed hidden


def test_a_spectator_sees_every_hand():
    web = _web_game(2, seed=3, human_seat=None)
    for view in _play_out(web, np.random.default_rng(0)):
        assert set(view["hands"]) == {"0", "1"} and view["moves"] == []
    assert view["game_over"] and view["to_move"] is None


def test_replay_data_has_every_position_and_checks_the_record(tmp_path):
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=4, target=60), ["greedy", "heuristic"], 2, seed=5, records_path=path)
    record = read_records(path)[1]
    data = replay_data(record, 2, 2)
    steps = sum(len(hand["actions"]) + 1 for hand in record["hands"])
    assert len(data["positions"]) == steps
    assert data["hand_starts"][0] == 0 and len(data["hand_starts"]) == len(record["hands"])
    final = replay(record)
    assert [side["score"] for side in data["positions"][-1]["sides"]] == final.scores
    assert data["positions"][-1]["game_over"] and "Record check passed" in data["check"]
    assert [row["totals"] for row in data["sheet"]] == [hand["scores_after"] for hand in record["hands"]]
    assert all(view["sheet"] is None for view in data["positions"])  # the sheet comes once, not per position
    assert all(set(view["hands"]) == {"0", "1", "2", "3"} for view in data["positions"])  # a spectator's replay
    record["scores"][0] += 5
    with pytest.raises(ValueError, match="replays to scores"):
        replay_data(record)


def test_a_replay_is_bounded_and_says_when_the_game_was_left_unfinished(tmp_path):
    path = tmp_path / "g.jsonl"
    run_match(RulesConfig(num_players=2, target=60), ["greedy", "random"], 2, seed=1, records_path=path)
    record = read_records(path)[0]
    record["hands"][0]["actions"] = record["hands"][0]["actions"] * 3000  # far too many positions
    with pytest.raises(ValueError, match="a replay page holds at most 20,000"):
        replay_data(record)
    record = read_records(path)[0]
    first = record["hands"][0]
    record["hands"] = [{**first, "actions": first["actions"][:5]}]
    del record["hands"][0]["scores_after"]
    game = Game(RulesConfig.from_options(**record["config"]))
    game.start_game(None, hands=first["hands"], boneyard=first["boneyard"], leader=first["leader"])
    for action in first["actions"][:5]:
        game.step(action)
    record.update(unfinished=True, winners=[], scores=list(game.scores))
    data = replay_data(record)
    assert data["unfinished"] and "stopped unfinished in hand 1" in data["check"]


def test_an_upload_is_read_as_data_with_a_size_limit():
    with pytest.raises(ValueError, match="line 1: not valid JSON"):
        records_from_upload(b"not json\n")
    with pytest.raises(ValueError, match="nested too deeply"):
        records_from_upload(b"[" * 100_000 + b"]" * 100_000)
    with pytest.raises(ValueError, match="the limit is"):
        records_from_upload(b" " * 6_000_000)
    with pytest.raises(ValueError, match="holds no game records"):
        records_from_upload(b"\n\n")
    with pytest.raises(ValueError, match="'hands' is missing"):
        records_from_upload(b'{"config": {}, "scores": [], "winners": []}\n')


def test_the_tile_a_seat_drew_and_must_play_is_named_to_that_seat_only():
    found = 0
    for game, _ in random_states(3, 4, seed=9):
        if game.must_play < 0:
            continue
        mover = game.to_move
        assert position_view(game, _names(3), viewer=mover)["must_play"] == game.must_play  # R13: yours to play
        assert position_view(game, _names(3), viewer=None)["must_play"] == game.must_play
        for other in {0, 1, 2} - {mover}:
            view = position_view(game, _names(3), viewer=other)
            assert view["must_play"] is None and game.must_play not in _tiles_named(view)
        found += 1
    assert found > 3


def test_after_a_draw_no_tile_is_marked_as_last_played():
    """``last_tile`` is the hand's latest step's tile only when that step was a play: after a draw (R13) the
    drawn tile is in the drawer's hand, not on the layout, and is never named to another seat.
    Catches (views.py _last_played: ``< DRAW`` -> ``<= DRAW``)."""
    draws = 0
    for game, _ in random_states(3, games=3, seed=4):
        last = game.events[-1] if game.events else None
        for viewer in (None, 0, 1, 2):
            view = position_view(game, _names(3), viewer=viewer)
            if last is None or last[1] >= DRAW:
                assert view["last_tile"] is None
            else:
                assert view["last_tile"] == last[2] and game.played_by[last[2]] >= 0
        draws += last is not None and last[1] == DRAW
    assert draws > 5


@pytest.mark.parametrize("players", [2, 4])
def test_an_arm_is_started_only_once_a_tile_lies_on_it(players):
    """R8/R11: N and S are not started before a tile is attached there; W and E start with the lead.
    Catches (views.py _end_view: ``arm_length > 0`` -> ``>= 0``)."""
    seen_unstarted = 0
    for game, _ in random_states(players, games=2, seed=players):
        ends = position_view(game, _names(players))["layout"]["ends"]
        for slot, end in enumerate(ends):
            assert end["started"] == (game.arm_length[slot] > 0)
            seen_unstarted += not end["started"]
    assert seen_unstarted > 0


def test_a_seated_person_gets_the_seed_and_the_record_only_when_the_game_is_over():
    """R4: the hands are hidden; the seed (every later deal) and the record (every hand and the boneyard)
    reveal them, so a seated person gets neither between hands, only once the game is over.
    Catches (games.py _may_see_everything: ``game.game_over`` -> ``game.hand_over``)."""
    import numpy as np

    from allfives_env.agents.random_agent import RandomAgent
    from allfives_env.play.web.games import WAIT_DEAL, WAIT_NOTHING, WAIT_PERSON, RequestError, WebGame
    from allfives_env.rules.config import RulesConfig

    rng = np.random.default_rng(0)
    web = WebGame("g", "play", RulesConfig(num_players=2), [None, RandomAgent()],
                  ["You (player_0)", "player_1"], ["human", "random"], 11, human_seat=0)
    between_hands = 0
    while web.waiting_for() != WAIT_NOTHING:
        view = web.view()
        assert view["seed"] is None and view["record_ready"] is False
        with pytest.raises(RequestError, match="ready when the game is over"):
            web.record_text()
        if web.waiting_for() == WAIT_PERSON:
            legal = web.game.legal_actions()
            web.move(web.version, legal[int(rng.integers(len(legal)))])
        else:
            between_hands += web.waiting_for() == WAIT_DEAL
            web.advance(web.version)
    assert between_hands >= 1
    view = web.view()
    assert view["seed"] == 11 and view["record_ready"] is True and web.record_text().endswith("\n")


@pytest.mark.parametrize("number", [0, -1, 3])
def test_pick_record_counts_games_from_1_and_refuses_the_rest(number):
    """Game numbers run from 1: 0 is no game (it must not wrap round to the file's last game).
    Catches (replays.py pick_record: ``1 <= game_number`` -> ``0 <= game_number``)."""
    from allfives_env.play.web.replays import pick_record

    records = [{"game": 1}, {"game": 2}]
    assert pick_record(records, 1) == {"game": 1} and pick_record(records, 2) == {"game": 2}
    with pytest.raises(ValueError, match=rf"game {number} is out of range; the file holds games 1\.\.2"):
        pick_record(records, number)
