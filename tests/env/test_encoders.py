"""Observation encoders: hand-checked vectors and the no-leak property."""

import numpy as np
import pytest
from support import random_states

from allfives_env.env.encoders import EVENT_FEATURES, DefaultEncoder, HistoryEncoder, default_layout
from allfives_env.rules import DRAW, Game, RulesConfig, encode
from allfives_env.rules.view import PlayerView, player_view


def one_hot(size, *indices, value=1.0):
    v = np.zeros(size, np.float32)
    for i in indices:
        v[i] = value
    return v


def r16_position():
    """R16's last example up to [3|4] (2 players): W = spinner [1|1] at the end, E = [4|4][3|4].

    Tile ids (R1): [0|0]..[0|5] = 0..5, [1|1]=7, [1|2]=8, [1|4]=10, [3|4]=19, [4|4]=22.
    """
    hands = [[10, 22, 8, 0, 1, 2, 3, 4, 5], [7, 19, 11, 6, 9, 12, 13, 14, 15]]
    boneyard = [16, 17, 18, 20, 21, 23, 24, 25, 26, 27]
    game = Game(RulesConfig(num_players=2))
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=boneyard, leader=0)
    for tile, slot in [(10, 0), (7, 0), (22, 1), (19, 1)]:
        game.step(encode(tile, slot))
    return game


def test_default_vector_hand_checked_for_the_seat_to_move():
    game = r16_position()
    encoder = DefaultEncoder(game.config)
    v = encoder.views(encoder.encode(game, 0))
    assert game.count == 5 and game.scores == [15.0, 5.0]
    np.testing.assert_array_equal(v["hand"], one_hot(28, 0, 1, 2, 3, 4, 5, 8))
    np.testing.assert_array_equal(v["played_by"][0], one_hot(28, 10, 22))
    np.testing.assert_array_equal(v["played_by"][1], one_hot(28, 7, 19))
    np.testing.assert_array_equal(v["slot_available"], [1, 1, 0, 0])
    np.testing.assert_array_equal(v["slot_value"][0], one_hot(7, 1))  # W: the spinner [1|1]
    np.testing.assert_array_equal(v["slot_value"][1], one_hot(7, 3))  # E: [3|4] shows 3
    assert not v["slot_value"][2:].any()
    np.testing.assert_array_equal(v["slot_double_end"], [1, 0, 0, 0])  # spinner at an end counts 2
    np.testing.assert_array_equal(v["slot_counts"], [1, 1, 0, 0])
    np.testing.assert_array_equal(v["spinner_state"], [0, 1, 0])
    np.testing.assert_array_equal(v["spinner_value"], one_hot(7, 1))
    assert v["count"][0] == pytest.approx(5 / 36)
    assert v["is_lead"][0] == 0
    assert v["boneyard"][0] == pytest.approx(1.0)
    np.testing.assert_allclose(v["hand_sizes"], [0.7, 0.7])
    np.testing.assert_array_equal(v["same_side"], [1, 0])
    np.testing.assert_allclose(v["scores"], [15 / 250, 5 / 250])
    assert not v["lacks"].any() and not v["forced"].any() and v["drawn_this_turn"][0] == 0
    np.testing.assert_array_equal(v["to_move"], [1, 0])
    np.testing.assert_array_equal(v["leader"], [1, 0])
    # legal: [1|2]@W (=32) covers the spinner: 2 + 3 = 5 scores 5; [0|1]@W (=4): 0+3;
    # [0|3]@E (=13): 2 + 0. Only action 32 scores.
    assert game.legal_actions() == [4, 13, 32]
    np.testing.assert_allclose(v["placement_points"], one_hot(112, 32, value=5 / 35))


def test_default_vector_for_the_other_seat_is_seat_relative():
    game = r16_position()
    encoder = DefaultEncoder(game.config)
    v = encoder.views(encoder.encode(game, 1))
    np.testing.assert_array_equal(v["hand"], one_hot(28, 6, 9, 11, 12, 13, 14, 15))
    np.testing.assert_array_equal(v["played_by"][0], one_hot(28, 7, 19))  # its own plays first
    np.testing.assert_array_equal(v["played_by"][1], one_hot(28, 10, 22))
    np.testing.assert_allclose(v["scores"], [5 / 250, 15 / 250])  # own side first
    np.testing.assert_array_equal(v["to_move"], [0, 1])
    np.testing.assert_array_equal(v["leader"], [0, 1])
    assert not v["placement_points"].any() and not v["forced"].any()


def test_forced_draw_lacks_and_drawn_tile_parts():
    """Seat 0 leads [5|5]; seat 1 holds no 5, draws [2|2] (unplayable) then [0|5]."""
    hands = [[25, 10, 11, 12, 14, 15, 16, 17, 18], [0, 1, 2, 3, 4, 6, 7, 8, 9]]
    boneyard = [13, 5, 19, 20, 21, 22, 23, 24, 26, 27]
    game = Game(RulesConfig(num_players=2))
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=boneyard, leader=0)
    encoder = DefaultEncoder(game.config)
    game.step(encode(25, 0))  # count 10 (lone double lead counts once), scores 10
    v = encoder.views(encoder.encode(game, 1))
    np.testing.assert_array_equal(v["forced"], [1, 0, 0])
    game.step(DRAW)  # [2|2]: no 5, keep drawing
    v = encoder.views(encoder.encode(game, 1))
    np.testing.assert_array_equal(v["forced"], [1, 0, 0])
    assert v["drawn_this_turn"][0] == pytest.approx(0.1)
    seen_by_0 = encoder.views(encoder.encode(game, 0))
    np.testing.assert_array_equal(seen_by_0["lacks"][1], one_hot(7, 5))  # seat 1 lacks 5s
    np.testing.assert_allclose(seen_by_0["hand_sizes"], [0.8, 1.0])
    game.step(DRAW)  # [0|5]: must be played now, at W or E (C4)
    v = encoder.views(encoder.encode(game, 1))
    np.testing.assert_array_equal(v["forced"], [0, 1, 0])
    assert game.legal_actions() == [20, 21]
    # [0|5] on the lone [5|5]: 0 + spinner at an end 10 = 10, scores 10, either slot
    np.testing.assert_allclose(v["placement_points"], one_hot(112, 20, 21, value=10 / 35))


def hide_differently(game, observer, rng):
    """A copy of ``game`` whose hidden tiles (not in the observer's hand, not
    played) are permuted everywhere they occur: other hands, the boneyard, other
    seats' draws in the history, another seat's pending drawn tile."""
    hidden = [t for t in range(28) if not game.hands[observer] >> t & 1 and game.played_by[t] < 0]
    mapping = dict(zip(hidden, rng.permutation(hidden).tolist()))
    other = game.clone()
    for seat in range(game.num_players):
        if seat != observer:
            other.hands[seat] = sum(1 << mapping[t] for t in range(28) if game.hands[seat] >> t & 1)
    other.boneyard = [mapping.get(t, t) if seat_of_draw(game, t) != observer else t for t in game.boneyard]
    other.events = [(s, a, mapping.get(t, t) if a == DRAW and s != observer else t, p, c)
                    for s, a, t, p, c in game.events]
    if game.to_move != observer and game.must_play >= 0:
        other.must_play = mapping[game.must_play]
    changed = any(mapping[t] != t for t in hidden)
    return other, changed


def seat_of_draw(game, tile):
    return next((s for s, a, t, _, _ in game.events if a == DRAW and t == tile), None)


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("encoder_class", [DefaultEncoder, HistoryEncoder])
def test_hidden_tiles_never_change_an_observation(num_players, encoder_class):
    """No leak: permuting every tile the observer cannot see leaves its
    observation unchanged, for every seat, at every decision of random games."""
    rng = np.random.default_rng(num_players)
    encoder = encoder_class(RulesConfig(num_players=num_players))
    checked = 0
    for game, _ in random_states(num_players, games=3, seed=num_players):
        for observer in range(num_players):
            other, changed = hide_differently(game, observer, rng)
            np.testing.assert_array_equal(encoder.encode(game, observer), encoder.encode(other, observer))
            checked += changed
    assert checked > 100  # the permutations really moved hidden tiles


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("encoder_class", [DefaultEncoder, HistoryEncoder])
def test_a_views_observation_is_the_encoding_of_the_real_game(num_players, encoder_class):
    """``view.observation`` encodes a stand-in game built from the view alone; for an encoder that
    reads nothing hidden it is exactly the real game's observation, for every seat (variants too)."""
    for rules in ({}, {"divisor": 3, "hand_size": "five_each"}):
        encoder = encoder_class(RulesConfig(num_players=num_players, **rules))
        checked = 0
        for game, _ in random_states(num_players, games=3, seed=10 + num_players, **rules):
            for seat in range(num_players):
                view = player_view(game, seat)
                np.testing.assert_array_equal(view.observation(encoder.encode), encoder.encode(game, seat))
                checked += 1
        assert checked > 100


def test_a_view_reaches_no_hidden_tile_and_cannot_change_the_game():
    """What an agent is given (the view, and the game its observation() hands an encoder) holds no
    other hand and no boneyard order, and changing it changes nothing real."""
    for game, _ in random_states(4, games=2, seed=3):
        before = (list(game.hands), list(game.boneyard), list(game.scores))
        view = player_view(game, game.to_move)
        stand_in = view.observation(lambda g, seat: g)
        assert stand_in is not game
        others = [s for s in range(4) if s != view.seat]
        assert [stand_in.hands[s] for s in others] == [view_fill(view, s) for s in others]
        assert stand_in.boneyard[stand_in.bone_pos:] == sorted(stand_in.boneyard[stand_in.bone_pos:])
        stand_in.scores[0] += 100
        stand_in.hands[(view.seat + 1) % 4] = 0
        assert (list(game.hands), list(game.boneyard), list(game.scores)) == before
        assert not any(value is game for value in (getattr(view, name) for name in PlayerView.__slots__))


def view_fill(view, seat):
    """The stand-in's hand of another seat: its public number of the lowest unseen tiles not
    given to a lower seat (nothing of the real hand)."""
    free = view.unseen
    for other in range(view.num_players):
        if other == view.seat:
            continue
        tiles = [t for t in range(28) if free >> t & 1][:view.hand_sizes[other]]
        hand = sum(1 << t for t in tiles)
        free &= ~hand
        if other == seat:
            return hand
    raise AssertionError(seat)


def test_a_leaking_encoder_would_be_caught():
    """The no-leak check fails for an encoder that reads another hand."""

    class Leaky(DefaultEncoder):
        def encode(self, game, seat, out=None):
            obs = super().encode(game, seat, out)
            obs[0] = game.hands[(seat + 1) % game.num_players] % 7
            return obs

    rng = np.random.default_rng(0)
    encoder = Leaky(RulesConfig(num_players=2))
    differs = 0
    for game, _ in random_states(2, games=1, seed=0):
        other, _ = hide_differently(game, 0, rng)
        differs += not np.array_equal(encoder.encode(game, 0), encoder.encode(other, 0))
    assert differs > 0


def test_history_encoder_rows():
    game = Game(RulesConfig(num_players=2))
    hands = [[25, 10, 11, 12, 14, 15, 16, 17, 18], [0, 1, 2, 3, 4, 6, 7, 8, 9]]
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=[13, 5, 19, 20, 21, 22, 23, 24, 26, 27], leader=0)
    for action in (encode(25, 0), DRAW, DRAW, encode(5, 1)):
        game.step(action)
    encoder = HistoryEncoder(game.config)
    f = {name: off for name, (off, _) in EVENT_FEATURES.parts.items()}
    for observer in (0, 1):
        events = encoder.views(encoder.encode(game, observer))["events"]
        assert events[:4, f["valid"]].tolist() == [1, 1, 1, 1] and not events[4:].any()
        lead, draw1, draw2, play = events[:4]
        assert lead[f["seat"] + (0 - observer) % 2] == 1 and lead[f["tile"] + 25] == 1
        assert lead[f["points"]] == pytest.approx(10 / 35)
        assert draw1[f["kind"] + 1] == 1
        # the drawn tiles ([2|2]=13, [0|5]=5) show only to their drawer, seat 1
        assert draw1[f["tile"] + 13] == (observer == 1) and draw2[f["tile"] + 5] == (observer == 1)
        assert draw1[f["tile"]:f["tile"] + 28].sum() == (observer == 1)
        assert play[f["tile"] + 5] == 1 and play[f["slot"] + 1] == 1
        assert play[f["points"]] == pytest.approx(10 / 35)  # 0 + spinner 10


def test_layout_sizes_match_the_space():
    for n in (2, 3, 4):
        layout = default_layout(n)
        assert DefaultEncoder(RulesConfig(num_players=n)).size == layout.size
        assert layout.parts["played_by"][1] == (n, 28)


def test_history_rows_hold_the_count_after_each_play_even_when_it_scores_nothing():
    """R16: lead [1|4] counts 5 and scores 5; [1|1] on the 1 counts 2 + 4 = 6 and scores 0. The row's
    ``count`` is the count (/36), ``points`` the points (/35): they differ on the second play.
    Catches (encoders.py HistoryEncoder: ``count / MAX_COUNT`` -> ``points / MAX_COUNT``)."""
    hands = [[10, 22, 8, 0, 1, 2, 3, 4, 5], [7, 19, 11, 6, 9, 12, 13, 14, 15]]  # [1|4]=10, [1|1]=7 (R1)
    game = Game(RulesConfig(num_players=2))
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=[16, 17, 18, 20, 21, 23, 24, 25, 26, 27],
                    leader=0)
    game.step(encode(10, 0))
    game.step(encode(7, 0))
    encoder = HistoryEncoder(game.config)
    f = {name: off for name, (off, _) in EVENT_FEATURES.parts.items()}
    for observer in (0, 1):
        lead, spinner = encoder.views(encoder.encode(game, observer))["events"][:2]
        assert lead[f["count"]] == pytest.approx(5 / 36) and lead[f["points"]] == pytest.approx(5 / 35)
        assert spinner[f["count"]] == pytest.approx(6 / 36) and spinner[f["points"]] == 0
