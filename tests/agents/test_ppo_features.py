"""Derived policy inputs (agents/ppo_features.py) against the engine itself."""

import numpy as np
import pytest

from allfives_env.agents.ppo_features import PolicyInput, feature_size
from allfives_env.encoders import DefaultEncoder
from allfives_env.rules import DRAW, RulesConfig
from allfives_env.rules.tiles import SUIT_TILES, TILE_HIGH, TILE_LOW, mask_to_tiles

from support import random_states


def engine_reply(game, action, divisor):
    """(best points, share of scoring tiles, own tiles still fitting / 7) after ``action``,
    by stepping a clone of the engine; None when the feature's model does not
    apply (the placement ends the hand, or opens side branches)."""
    observer, n = game.to_move, game.num_players
    seen = game.hands[observer]
    for mask in game.played_masks:
        seen |= mask
    lacks = game.lacks[(observer + 1) % n]
    tiles = [t for t in range(28) if not seen >> t & 1
             and not lacks >> TILE_LOW[t] & 1 and not lacks >> TILE_HIGH[t] & 1]
    after = game.clone()
    after.step(action)
    if after.hand_over or (after.branches_open and not game.branches_open):
        return None
    fitting = 0
    for value in after.open_value:
        if value >= 0:
            fitting |= SUIT_TILES[value]
    control = (after.hands[observer] & fitting).bit_count() / 7.0
    if not tiles:
        return 0.0, 0.0, control
    best, scoring = 0, 0
    for tile in tiles:
        got = 0
        for slot in range(4):
            value = after.open_value[slot]
            if value >= 0 and value in (TILE_LOW[tile], TILE_HIGH[tile]):
                count = after.count_after(tile, slot)
                if count > 0 and count % divisor == 0:
                    got = max(got, count)
        scoring += got > 0
        best = max(best, got)
    return best / 35.0, scoring / len(tiles), control


@pytest.mark.parametrize("num_players,divisor", [(2, 5), (3, 5), (4, 5), (2, 3)])
def test_reply_features_match_the_engine(num_players, divisor):
    config = RulesConfig(num_players=num_players, divisor=divisor)
    encoder = DefaultEncoder(config)
    policy_input = PolicyInput("reply_control", num_players, divisor)
    assert policy_input.size == encoder.size + feature_size("reply_control") == encoder.size + 336
    reply_only = PolicyInput("reply", num_players, divisor)
    checked, nonzero = 0, 0
    for game, _ in random_states(num_players, games=4, seed=num_players + divisor, divisor=divisor):
        legal = game.legal_actions()
        if legal[0] >= DRAW:
            continue
        obs = encoder.encode(game, game.to_move)
        mask = np.zeros((1, 114), np.int8)
        mask[0, legal] = 1
        got = policy_input(obs[None, :], mask)[0]
        np.testing.assert_array_equal(got[:encoder.size], obs)  # the observation comes first, unchanged
        np.testing.assert_array_equal(reply_only(obs[None, :], mask)[0], got[:reply_only.size])  # a prefix
        best, share = got[encoder.size:encoder.size + DRAW], got[encoder.size + DRAW:encoder.size + 2 * DRAW]
        control = got[encoder.size + 2 * DRAW:]
        illegal = mask[0, :DRAW] == 0
        assert not best[illegal].any() and not share[illegal].any() and not control[illegal].any()
        for action in legal:
            expected = engine_reply(game, action, divisor)
            if expected is None:
                continue
            assert best[action] == pytest.approx(expected[0], abs=1e-6), (action, mask_to_tiles(game.hands[game.to_move]))
            assert share[action] == pytest.approx(expected[1], abs=1e-6), action
            assert control[action] == pytest.approx(expected[2], abs=1e-6), action
            checked += 1
            nonzero += expected[0] > 0
    assert checked > 300 and nonzero > 50


def test_no_features_is_the_observation_itself():
    policy_input = PolicyInput("none", 2, 5)
    obs = np.ones((3, policy_input.size), np.float32)
    assert policy_input(obs, np.ones((3, 114), np.int8)) is obs
    with pytest.raises(ValueError, match="features='threat' is not allowed; allowed: \\['none', 'reply', 'reply_control'\\]"):
        PolicyInput("threat", 2, 5)
