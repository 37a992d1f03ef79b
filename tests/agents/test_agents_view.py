"""Player views hold no hidden tiles; sampled worlds agree with the view (hypothesis)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support import random_states

from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.actions import DRAW, PASS, tile_of
from allfives_env.rules.tiles import SUIT_TILES, TILE_SUITS
from allfives_env.rules.view import player_view, public_layout, sample_world


def _play_random(num_players, seed, steps, **rules):
    """A game after `steps` random steps (new hands dealt as needed)."""
    rng = np.random.default_rng(seed)
    game = Game(RulesConfig(num_players=num_players, **rules))
    game.start_game(rng)
    for _ in range(steps):
        if game.game_over:
            break
        if game.hand_over:
            game.start_next_hand(rng)
            continue
        actions = game.legal_actions()
        game.step(actions[int(rng.integers(len(actions)))])
    return game


def _lacked_tiles(lacks):
    mask = 0
    for suit in range(7):
        if lacks >> suit & 1:
            mask |= SUIT_TILES[suit]
    return mask


def check_consistent(game, seat, world):
    view = player_view(game, seat)
    n = game.num_players
    assert world.hands[seat] == game.hands[seat]
    assert [h.bit_count() for h in world.hands] == [h.bit_count() for h in game.hands]
    assert len(world.boneyard) == len(game.boneyard) and world.bone_pos == game.bone_pos
    # every tile exactly once: hands + undrawn boneyard + played tiles
    seen = 0
    for hand in world.hands:
        assert seen & hand == 0
        seen |= hand
    for tile in world.boneyard[world.bone_pos:]:
        assert not seen >> tile & 1
        seen |= 1 << tile
    played = sum(1 << t for t in range(28) if game.played_by[t] >= 0)
    assert seen & played == 0 and seen | played == (1 << 28) - 1
    # no other seat holds a suit it is known to lack (a pending drawn tile excepted)
    for other in range(n):
        if other == seat:
            continue
        hand = world.hands[other]
        if other == world.to_move and world.must_play >= 0:
            hand &= ~(1 << world.must_play)
        assert hand & _lacked_tiles(game.lacks[other]) == 0
    # the world shows the seat exactly the same information
    assert player_view(world, seat).key() == view.key()
    if game.to_move == seat and not game.hand_over:
        assert world.legal_actions() == game.legal_actions()


@settings(max_examples=80, deadline=None)
@given(
    num_players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
    steps=st.integers(0, 120),
    hand_size=st.sampled_from(["standard", "five_each", "seven_five"]),
    sample_seed=st.integers(0, 2**32 - 1),
)
def test_sampled_worlds_are_consistent_with_the_view(num_players, seed, steps, hand_size, sample_seed):
    game = _play_random(num_players, seed, steps, hand_size=hand_size)
    if game.game_over:
        return
    rng = np.random.default_rng(sample_seed)
    for seat in range(num_players):
        check_consistent(game, seat, sample_world(player_view(game, seat), rng))


def test_sampled_worlds_play_on_to_the_end():
    rng = np.random.default_rng(7)
    for num_players in (2, 3, 4):
        for seed in range(20):
            game = _play_random(num_players, seed, 40)
            if game.game_over or game.hand_over:
                continue
            world = sample_world(player_view(game, game.to_move), rng)
            while not world.hand_over:
                world.step(world.legal_actions()[0])


def test_view_hides_other_hands_boneyard_and_their_draws():
    found_draw = False
    for seed in range(30):
        game = _play_random(2, seed, 60)
        if game.game_over:
            continue
        for seat in range(2):
            view = player_view(game, seat)
            for (s, a, t, _, _) in view.events:
                if a == DRAW and s != seat:
                    found_draw = True
                    assert t == -1
            assert not hasattr(view, "hands") and not hasattr(view, "boneyard")
            assert view.unseen & view.hand == 0
    assert found_draw


def test_view_key_ignores_hidden_state():
    """Swapping an opponent's tile with a boneyard tile leaves the view unchanged."""
    game = _play_random(2, 3, 0)
    view = player_view(game, 0)
    other = game.clone()
    held = other.hands[1] & -other.hands[1]
    bone = other.boneyard[other.bone_pos]
    other.hands[1] = (other.hands[1] & ~held) | (1 << bone)
    other.boneyard[other.bone_pos] = held.bit_length() - 1
    assert player_view(other, 0).key() == view.key()
    assert player_view(other, 1).key() != player_view(game, 1).key()


def test_public_layout_counts_like_the_game():
    for seed in range(10):
        game = _play_random(2, seed, 15)
        if game.hand_over:
            continue
        view = player_view(game, game.to_move)
        layout = public_layout(view)
        for action in game.legal_actions():
            if action < DRAW:
                assert layout.count_after(action >> 2, action & 3) == game.count_after(action >> 2, action & 3)
                assert view.count_after(action >> 2, action & 3) == game.count_after(action >> 2, action & 3)


def test_observation_hook_passes_a_stand_in_game_and_the_seat():
    """The encoder gets the seat and a game that agrees with the real one on everything the seat
    may know (its own hand, the layout, scores, sizes), not the real game."""
    game = _play_random(3, 1, 5)
    view = player_view(game, 2)
    stand_in, seat = view.observation(lambda g, s: (g, s))
    assert seat == 2 and stand_in is not game
    assert stand_in.hands[2] == game.hands[2] and stand_in.scores == game.scores
    assert [h.bit_count() for h in stand_in.hands] == [h.bit_count() for h in game.hands]
    assert (stand_in.count, stand_in.arms, stand_in.played_by) == (game.count, game.arms, game.played_by)
    assert player_view(stand_in, 2).key() == view.key()


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_sampling_is_reproducible(num_players):
    game = _play_random(num_players, 11, 25)
    view = player_view(game, 0)
    a = sample_world(view, np.random.default_rng(5))
    b = sample_world(view, np.random.default_rng(5))
    assert a.hands == b.hands and a.boneyard == b.boneyard


def _pending_draw_positions(num_players, seeds):
    """Positions (random play) right after a seat drew a tile it cannot play and still has the turn (C1, R13)."""
    for seed in seeds:
        rng = np.random.default_rng(seed)
        game = Game(RulesConfig(num_players=num_players))
        game.start_game(rng)
        while not game.hand_over:
            actions = game.legal_actions()
            game.step(actions[int(rng.integers(len(actions)))])
            last = game.events[-1] if game.events else None
            if (not game.hand_over and last is not None and last[1] == DRAW and last[0] == game.to_move
                    and game.must_play < 0):
                yield game.clone()


def test_a_sampled_pending_draw_is_a_must_play_tile_only_when_it_fits():
    """R13/C1: after a draw the drawer keeps the turn; it must play the drawn tile only when that tile fits an
    open end, else it draws again (or passes). Another seat cannot see the tile, so sample_world draws it among
    the unseen tiles, and the world it builds must follow R13 for whatever tile it drew: a must-play tile that
    fits, or none, and in every case at least one legal action for the drawer."""
    rng = np.random.default_rng(11)
    checked = unfit = 0
    for num_players in (2, 3, 4):
        for game in _pending_draw_positions(num_players, range(40)):
            drawer = game.to_move
            for seat in range(num_players):
                if seat == drawer:
                    continue
                view = player_view(game, seat)
                for _ in range(5):
                    world = sample_world(view, rng)
                    assert world.to_move == drawer
                    legal = world.legal_actions()
                    assert legal, f"the drawer has no legal action in a sampled world (must_play={world.must_play})"
                    if world.must_play >= 0:
                        assert TILE_SUITS[world.must_play] & world.open_suits(), "a must-play tile that fits nowhere"
                        assert all(a < DRAW and tile_of(a) == world.must_play for a in legal)
                    else:
                        unfit += 1
                        # the drawer cannot play anything it holds (it drew because nothing fitted)
                        assert legal == ([DRAW] if world.bone_pos < len(world.boneyard) else [PASS])
                    checked += 1
    assert checked > 50 and unfit > 0


def test_the_public_layout_has_the_views_boneyard_left_and_the_same_legal_moves():
    """The public layout's boneyard is unknown but as long as the real one's undrawn part, so its seat to
    move draws (R13) or passes (only with an empty boneyard) exactly as in the game.
    Catches (view.py public_layout: ``[-1] * view.boneyard_left`` -> ``view.boneyard_size``)."""
    forced = {DRAW: 0, PASS: 0}
    for num_players in (2, 3, 4):
        for game, _ in random_states(num_players, games=2, seed=20 + num_players):
            view = player_view(game, game.to_move)
            layout = public_layout(view)
            assert layout.boneyard_left == view.boneyard_left == game.boneyard_left
            assert layout.legal_actions() == game.legal_actions()
            if game.legal_actions()[0] in forced and game.bone_pos > 0:
                forced[game.legal_actions()[0]] += 1
    assert forced[DRAW] > 0 and forced[PASS] > 0  # both kinds of forced move were met after draws
