"""Rules options (V1-V5) and user-given deals (R4) are validated with clear
ValueErrors that name the key and what is allowed."""

import dataclasses
import math

import numpy as np
import pytest
from rules_testkit import fill_deal, tiles

from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.actions import parse_action
from allfives_env.rules.tiles import parse_tile


# ---------------------------------------------------------------- RulesConfig
def test_config_defaults_are_the_standard_game():
    config = RulesConfig()
    assert config.to_dict() == {"num_players": 2, "hand_size": "standard", "target": None,
                                "first_leader": "random", "hand_scoring": "bonus", "divisor": 5}
    assert RulesConfig.from_options() == config
    assert RulesConfig.from_options(num_players=4, divisor=3).divisor == 3


def test_config_unknown_key_names_it_and_the_allowed_ones():
    with pytest.raises(ValueError) as info:
        RulesConfig.from_options(players=3)
    message = str(info.value)
    assert "players" in message
    for key in ("num_players", "hand_size", "target", "first_leader", "hand_scoring", "divisor"):
        assert key in message


@pytest.mark.parametrize("value", [1, 5, 0, True, False, "2", None, 2.0, 3.5])
def test_config_bad_num_players(value):
    """R2: 2, 3 or 4 players; a bool or a float is not a player count."""
    with pytest.raises(ValueError) as info:
        RulesConfig.from_options(num_players=value)
    message = str(info.value)
    assert "num_players" in message and "2, 3 or 4" in message


@pytest.mark.parametrize("key, value, allowed", [
    ("hand_size", "six_each", ["standard", "five_each", "seven_five"]),
    ("hand_size", 9, ["standard", "five_each", "seven_five"]),
    ("first_leader", "youngest", ["random", "heaviest_tile"]),
    ("hand_scoring", "none", ["bonus", "bonus_net", "penalty"]),
    ("divisor", 4, ["5", "3"]),
    ("divisor", True, ["5", "3"]),
    ("divisor", "5", ["5", "3"]),
    ("target", 0, ["positive"]),
    ("target", -50, ["positive"]),
    ("target", True, ["positive"]),
    ("target", "250", ["positive"]),
    ("target", math.nan, ["positive"]),
    ("target", 1e300, ["up to 10,000"]),  # a game that would not end in a lifetime
])
def test_config_bad_choice_names_key_and_allowed(key, value, allowed):
    with pytest.raises(ValueError) as info:
        RulesConfig.from_options(**{key: value})
    message = str(info.value)
    assert key in message
    for word in allowed:
        assert word in message


def test_config_is_immutable():
    config = RulesConfig()
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.num_players = 3


# -------------------------------------------------------------- bad deals (R4)
def _start(players=2, hands=None, boneyard=None, leader=0, scores=None, **options):
    config = RulesConfig(num_players=players, **options)
    game = Game(config)
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=boneyard, leader=leader, scores=scores)
    return game


def _good(players=2):
    return fill_deal(RulesConfig(num_players=players), [])


def test_good_deal_is_accepted_and_boneyard_order_kept():
    hands, boneyard = _good(3)
    game = _start(3, hands, boneyard[::-1])
    assert game.boneyard == boneyard[::-1] and game.boneyard_left == 7
    game = _start(3, hands, None)  # a missing boneyard is the rest, shuffled
    assert sorted(game.boneyard) == sorted(boneyard)


def test_deal_wrong_number_of_hands():
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match="has 3 hands; 2 players need 2"):
        _start(2, hands + [[]], boneyard)
    with pytest.raises(ValueError, match="one per seat"):
        _start(2, hands[:1], boneyard)


def test_deal_wrong_hand_size():
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match="seat 1 has 8 tiles.*9 each"):
        _start(2, [hands[0], hands[1][:8]], boneyard + hands[1][8:])


def test_deal_wrong_hand_size_names_the_scheme():
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match="five_each"):
        _start(2, hands, boneyard, hand_size="five_each")


def test_deal_duplicate_tile():
    hands, boneyard = _good(2)
    bad = [hands[0][:8] + [hands[1][0]], hands[1]]
    with pytest.raises(ValueError, match=r"exactly once.*repeated \[9\]"):
        _start(2, bad, boneyard + [hands[0][8]])


def test_deal_missing_tile():
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match=r"missing \[27\]"):
        _start(2, hands, boneyard[:-1])


@pytest.mark.parametrize("bad", ["x", 1.5, 28, -1, True, None])
def test_deal_non_int_tile_id(bad):
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match="not a tile id"):
        _start(2, [[bad] + hands[0][1:], hands[1]], boneyard + hands[0][:1])
    with pytest.raises(ValueError, match="boneyard.*not a tile id|not a tile id.*boneyard"):
        _start(2, hands, boneyard[:-1] + [bad])


def test_deal_numpy_tile_ids_are_fine():
    hands, boneyard = _good(2)
    game = _start(2, [np.array(h) for h in hands], np.array(boneyard))
    assert game.hand_size(0) == 9


def test_deal_boneyard_without_hands():
    with pytest.raises(ValueError, match="boneyard"):
        _start(2, None, list(range(10)))


@pytest.mark.parametrize("leader", [2, -1, 5, True, 1.5, 1.0, "0", np.float64(1)])
def test_deal_leader_out_of_range(leader):
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match=r"leader.*allowed 0\.\.1"):
        _start(2, hands, boneyard, leader=leader)


def test_deal_integral_leader_forms():
    hands, boneyard = _good(4)
    assert _start(4, hands, boneyard, leader=np.int64(3)).to_move == 3


@pytest.mark.parametrize("scores, match", [
    ([250, 0], "target"),
    ([0, 260], "target"),
    ([10.25, 0], "half points"),
    ([0.1, 0], "half points"),
    ([0, 0, 0], "one per side"),
    ([0], "one per side"),
    ([math.inf, 0], "score of side 0"),
    ([math.nan, 0], "score of side 0"),
    (["5", 0], "score of side 0"),
])
def test_deal_bad_scores(scores, match):
    """R3/R24: start scores are whole or half points below the target."""
    hands, boneyard = _good(2)
    with pytest.raises(ValueError, match=match):
        _start(2, hands, boneyard, scores=scores)


def test_deal_good_scores():
    hands, boneyard = _good(4)
    game = _start(4, hands, boneyard, scores=[199.5, -20])
    assert game.scores == [199.5, -20.0] and game.hand_start_scores == [199.5, -20.0]
    game = _start(2, *_good(2), scores=[np.int64(12), 30.5], target=31)
    assert game.scores == [12, 30.5]


def test_start_next_hand_needs_a_finished_hand():
    game = _start(2, *_good(2))
    with pytest.raises(RuntimeError):
        game.start_next_hand(np.random.default_rng(0))


def test_tiles_helper_reads_names():
    assert tiles("0|0 6|6 [1|4]") == [0, 27, 10]


# ---------------------------------------------------------------- a known next deal
def _first_hand_ended_by(kind):
    """A 2-player game whose first hand (first legal moves, seeded deals) ended by ``kind``."""
    for seed in range(500):
        game = Game(RulesConfig(num_players=2, target=1000))
        game.start_game(np.random.default_rng(seed))
        while not game.hand_over:
            game.step(game.legal_actions()[0])
        if game.hand_result.kind == kind:
            return game
    raise AssertionError(f"no first hand ended by {kind}")


def test_known_next_deal_after_a_domino_is_led_by_the_domino_seat():
    """R19: the seat that dominoed leads; a known deal naming another leader is refused, the game unchanged."""
    game = _first_hand_ended_by("domino")
    winner, order = game.next_leader, list(range(28))
    with pytest.raises(ValueError, match=r"seat .* dominoed the last hand and leads the next \(R19\)"):
        game.start_next_hand(None, deal=(1 - winner, order))
    assert game.hand_over and game.hand_number == 0 and game.next_leader == winner
    game.start_next_hand(None, deal=(winner, order))
    assert game.hand_number == 1 and game.to_move == winner and game.boneyard == order[18:]


def test_known_next_deal_after_a_block_takes_the_drawn_leader():
    for leader in (0, 1):
        game = _first_hand_ended_by("block")
        game.start_next_hand(None, deal=(leader, list(range(28))))
        assert game.leader == leader


@pytest.mark.parametrize("leader, order, match", [
    (5, list(range(28)), "not a seat"),
    (None, list(range(28)), "not a seat"),
    (0, [0] + list(range(1, 27)) + [0], "exactly once"),
    (0, list(range(27)), "exactly once"),
    (0, list(range(27)) + [28], "not a tile id"),
])
def test_known_next_deal_is_checked_before_anything_changes(leader, order, match):
    game = _first_hand_ended_by("block")
    with pytest.raises(ValueError, match=match):
        game.start_next_hand(None, deal=(leader, order))
    assert game.hand_over and game.hand_number == 0


@pytest.mark.parametrize("options, words", [
    ({"target": float("inf")}, "target=inf is not allowed; allowed: a positive number of points up to 10,000"),
    ({"target": float("nan")}, "target=nan is not allowed"),
    ({"divisor": 5.0}, "divisor=5.0 is not allowed; allowed: the integer 5"),
])
def test_numbers_the_engine_cannot_play_are_refused_once_for_every_engine(options, words):
    """V2/V5 are checked in RulesConfig, so the AEC env, the batched env and the arena all refuse them."""
    from allfives_env import env
    from allfives_env.vector import VectorAllFives

    for build in (lambda: RulesConfig(**options), lambda: env(**options), lambda: VectorAllFives(2, **options)):
        with pytest.raises(ValueError, match=words):
            build()


# ---------------------------------------------------------------- the codec
@pytest.mark.parametrize("action", [float("inf"), float("nan"), True, False, np.bool_(True), np.array([True]), None,
                                    "4", 2.5, 114, -1, np.array([1, 2]), np.arange(30).reshape(5, 6),
                                    # a duration, an object and a text array: were read as action 4
                                    np.timedelta64(4), np.array(4, dtype=object), np.array(["4"])])
def test_decode_refuses_what_is_not_an_action_id(action):
    from allfives_env.rules.actions import action_name, decode

    for call in (decode, action_name):
        with pytest.raises(ValueError, match=r"allowed: integers 0\.\.113"):
            call(action)


@pytest.mark.parametrize("action", [4.0, np.float64(4), np.int8(4), np.array(4), np.array([4]), np.array([[4]])])
def test_decode_reads_whole_numbers_as_their_int(action):
    from allfives_env.rules.actions import action_name, decode

    assert decode(action) == ("play", 1, 0) and action_name(action) == action_name(4)
    assert all(type(part) is int for part in decode(action)[1:])


@pytest.mark.parametrize("tile, slot, word", [
    (1.5, 0, "tile index 1.5"), (3, 1.5, "slot 1.5"), (True, 0, "tile index True"), ("3", 0, "tile index '3'"),
    (None, 0, "tile index None"), (3, 4, "slot 4"), (28, 0, "tile index 28")])
def test_encode_refuses_what_is_not_a_tile_and_slot(tile, slot, word):
    from allfives_env.rules.actions import encode

    with pytest.raises(ValueError, match=rf"{word} is not allowed; allowed: integers"):
        encode(tile, slot)


def test_a_refused_array_is_shown_on_one_short_line():
    from allfives_env.rules.actions import check_action_id

    with pytest.raises(ValueError) as err:
        check_action_id(np.arange(300).reshape(10, 30))
    assert "\n" not in str(err.value) and len(str(err.value)) < 140


def test_encode_takes_numpy_integers_and_returns_an_int():
    from allfives_env.rules.actions import encode

    assert encode(np.int64(3), np.int8(1)) == 13 and type(encode(np.int64(3), np.int8(1))) is int


def test_action_names_read_back_and_a_placement_without_a_slot_is_at_w():
    """Every id's name parses to that id; a bare tile names its placement at W, the lead's slot (R6, R8)."""
    from allfives_env.rules.actions import NUM_ACTIONS, action_name, encode, parse_action

    assert [parse_action(action_name(a)) for a in range(NUM_ACTIONS)] == list(range(NUM_ACTIONS))
    assert parse_action("3|5") == parse_action(" 3|5@w ") == encode(tiles("3|5")[0], 0)


@pytest.mark.parametrize("text", [5, None, b"draw"])
def test_parse_action_refuses_what_is_not_text(text):
    from allfives_env.rules.actions import parse_action

    with pytest.raises(ValueError, match="is not a string; allowed: a tile and slot such as '3|5@E'"):
        parse_action(text)


@pytest.mark.parametrize("options, word", [({"num_players": np.int8(4)}, "num_players"),
                                           ({"divisor": np.int16(3)}, "divisor"),
                                           ({"num_players": 4, "target": np.float32(150.5)}, "target"),
                                           ({"target": np.int64(300)}, "target")])
def test_numpy_numbers_are_stored_as_python_numbers(options, word):
    config = RulesConfig(**options)
    assert type(getattr(config, word)) in (int, float)
    assert getattr(config, word) == options[word]


@pytest.mark.parametrize("value", [np.array("standard"), np.array(["standard", "five_each"])])
def test_a_choice_given_as_an_array_is_refused_in_one_line(value):
    with pytest.raises(ValueError, match=r"hand_size=array\(.* is not allowed; allowed: \['standard'"):
        RulesConfig(hand_size=value)


def test_a_deal_error_names_only_what_is_wrong():
    config = RulesConfig()
    with pytest.raises(ValueError) as err:
        Game(config).start_game(np.random.default_rng(0), hands=[[0] * 9, [1] * 9])
    assert "repeated [0, 1]" in str(err.value) and "missing" not in str(err.value)


@pytest.mark.parametrize("text", ["123", "1|2|3", "[1|2]3", "3-4-5"])
def test_a_tile_name_with_more_than_two_halves_is_refused(text):
    """R1: a tile has exactly two halves; a third digit is a typo, not the first two.
    Catches (tiles.py parse_tile: a reader taking the first two digits of a longer name)."""
    with pytest.raises(ValueError, match="cannot read a tile"):
        parse_tile(text)
    with pytest.raises(ValueError, match="cannot read a tile"):
        parse_action(f"{text}@E")


@pytest.mark.parametrize("target", [10 ** 400, -(10 ** 400)])
def test_a_target_beyond_a_floats_range_is_refused_not_an_overflow(target):
    """V2: an int too large for a float made ``math.isfinite`` raise OverflowError."""
    with pytest.raises(ValueError, match="target=.* is not allowed"):
        RulesConfig(target=target)


@pytest.mark.parametrize("text", ["x3y5", "-1|2", "3|5|", "[3|5", "3|5]", "3||5", "7|1", "\u0663|5", "3 5 x"])
def test_a_tile_name_with_other_characters_is_refused(text):
    """R1: a tile is two halves 0..6, written [a|b], a|b, a-b or ab; the digits were picked out of any text
    ('x3y5' read as [3|5], '-1|2' as [1|2])."""
    with pytest.raises(ValueError, match="cannot read a tile"):
        parse_tile(text)


@pytest.mark.parametrize("text", ["3|5", "[3|5]", "3-5", "35", " [ 5 | 3 ] ", "5-3"])
def test_every_documented_way_of_writing_a_tile_reads_it(text):
    assert parse_tile(text) == parse_tile("[3|5]")


@pytest.mark.parametrize("text", [35, 3.5, b"35", ["3", "5"], None])
def test_parse_tile_refuses_what_is_not_a_string(text):
    """Catches parse_tile reading a non-string (the number 35, bytes) through str() as a tile name."""
    with pytest.raises(ValueError, match="cannot read a tile from .*; write it as \\[a\\|b\\] with halves 0..6"):
        parse_tile(text)
