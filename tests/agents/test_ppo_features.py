"""Derived policy inputs (agents/ppo/features.py) against the engine itself."""

import itertools
import math

import numpy as np
import pytest
from support import random_states

from allfives_env.agents.greedy import greedy_action
from allfives_env.agents.ppo.features import PolicyInput, feature_size
from allfives_env.env.encoders import DefaultEncoder
from allfives_env.rules import DRAW, RulesConfig
from allfives_env.rules.tiles import SUIT_TILES, TILE_HIGH, TILE_LOW, mask_to_tiles


def _possible(game, observer, seat):
    """Tiles the observer has not seen that hold no suit ``seat`` is known to lack."""
    seen = game.hands[observer]
    for mask in game.played_masks:
        seen |= mask
    lacks = game.lacks[seat]
    return [t for t in range(28) if not seen >> t & 1
            and not lacks >> TILE_LOW[t] & 1 and not lacks >> TILE_HIGH[t] & 1]


def _best_points(game, tile, divisor):
    best = 0
    for slot in range(4):
        value = game.open_value[slot]
        if value >= 0 and value in (TILE_LOW[tile], TILE_HIGH[tile]):
            count = game.count_after(tile, slot)
            if count > 0 and count % divisor == 0:
                best = max(best, count)
    return best


def engine_reply(game, action, divisor):
    """(best points, share of scoring tiles, own tiles still fitting / 7) after ``action``,
    by stepping a clone of the engine; None when the feature's model does not
    apply (the placement ends the hand, or opens side branches)."""
    observer, n = game.to_move, game.num_players
    tiles = _possible(game, observer, (observer + 1) % n)
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
    points = [_best_points(after, tile, divisor) for tile in tiles]
    return max(points) / 35.0, sum(p > 0 for p in points) / len(tiles), control


@pytest.mark.parametrize("num_players,divisor", [(2, 5), (3, 5), (4, 5), (2, 3)])
def test_reply_features_match_the_engine(num_players, divisor):
    config = RulesConfig(num_players=num_players, divisor=divisor)
    encoder = DefaultEncoder(config)
    policy_input = PolicyInput("reply_control", num_players, divisor)
    assert policy_input.size == encoder.size + feature_size("reply_control") == encoder.size + 336
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
    with pytest.raises(ValueError, match="features='threat' is not allowed; allowed: \\['none', 'reply_control', 'lookahead', 'lookahead_infer'\\]"):
        PolicyInput("threat", 2, 5)


def _mean_best(game, tiles, hand_size, divisor):
    """Mean over every hand of ``hand_size`` tiles from ``tiles`` of its best points on ``game``'s layout."""
    hands = list(itertools.combinations(tiles, min(hand_size, len(tiles))))
    return sum(max([_best_points(game, t, divisor) for t in hand], default=0) for hand in hands) / len(hands)


def engine_lookahead(game, action, divisor, limit=400):
    """(next_points, next_stuck, after_next_points) by enumerating every hand the next seat could hold
    (and, for each greedy reply, every hand of the seat after next), stepping engine clones with the
    greedy agent; None where the feature's model does not apply (the hand ends, side branches open)
    or the enumeration would exceed ``limit`` hands."""
    observer, n = game.to_move, game.num_players
    nxt, seat2 = (observer + 1) % n, (observer + 2) % n
    after = game.clone()
    after.step(action)
    if after.hand_over or (after.branches_open and not game.branches_open):
        return None
    tiles1, h1 = _possible(game, observer, nxt), game.hand_size(nxt)
    if h1 < 2 or math.comb(len(tiles1), min(h1, len(tiles1))) > limit:
        return None
    own = seat2 == observer
    tiles2 = [t for t in range(28) if after.hands[observer] >> t & 1] if own else _possible(game, observer, seat2)
    h2 = after.hand_size(seat2)
    if not own and math.comb(len(tiles2), min(h2, len(tiles2))) > limit:
        return None
    points = stuck = after_next = 0.0
    cache = {}
    hands = list(itertools.combinations(tiles1, min(h1, len(tiles1))))
    for hand in hands:
        g = after.clone()
        g.hands[nxt] = sum(1 << t for t in hand)
        g._legal = None
        legal = g.legal_actions()
        if legal[0] >= DRAW:
            stuck += 1
            reply = None
        else:
            reply = greedy_action(g, legal)
            count = g.count_after(reply >> 2, reply & 3)
            points += count if count > 0 and count % divisor == 0 else 0
        if reply not in cache:
            if reply is not None:
                g.step(reply)
                if g.hand_over or (g.branches_open and not after.branches_open):
                    return None
            rest = [t for t in tiles2 if reply is None or t != reply >> 2]
            cache[reply] = _mean_best(g, rest, h2, divisor)
        after_next += cache[reply]
    k = len(hands)
    return points / k / 35.0, stuck / k, after_next / k / 35.0


@pytest.mark.parametrize("num_players,divisor", [(2, 5), (3, 5), (4, 5), (4, 3)])
def test_lookahead_features_match_enumerated_hands(num_players, divisor):
    """R15 scoring of the next seat's greedy reply and the following seat's best play, against the
    engine with every hand the model allows (the model: uniform hands among the possible tiles)."""
    config = RulesConfig(num_players=num_players, divisor=divisor)
    encoder = DefaultEncoder(config)
    lookahead = PolicyInput("lookahead", num_players, divisor)
    shorter = PolicyInput("reply_control", num_players, divisor)
    assert lookahead.size == encoder.size + 6 * DRAW
    checked, nonzero, stuck_seen = 0, 0, 0
    for game, _ in random_states(num_players, games=3, seed=10 + num_players + divisor, divisor=divisor):
        legal = game.legal_actions()
        if legal[0] >= DRAW or checked >= 120:
            continue
        obs = encoder.encode(game, game.to_move)
        mask = np.zeros((1, 114), np.int8)
        mask[0, legal] = 1
        got = lookahead(obs[None, :], mask)[0]
        np.testing.assert_array_equal(shorter(obs[None, :], mask)[0], got[:shorter.size])  # a prefix
        blocks = got[shorter.size:].reshape(3, DRAW)
        assert not blocks[:, mask[0, :DRAW] == 0].any()
        for action in legal:
            expected = engine_lookahead(game, action, divisor)
            if expected is None:
                continue
            np.testing.assert_allclose(blocks[:, action], expected, atol=1e-5,
                                       err_msg=f"action {action}, hand {mask_to_tiles(game.hands[game.to_move])}")
            checked += 1
            nonzero += expected[0] > 0 and expected[2] > 0
            stuck_seen += 0 < expected[1] < 1
    assert checked >= 60 and nonzero >= 10 and stuck_seen >= 10, (checked, nonzero, stuck_seen)


def test_each_set_extends_the_sets_it_warm_starts_from():
    from allfives_env.agents.ppo.features import extends

    assert extends("lookahead", "reply_control") and extends("reply_control", "none")
    assert extends("lookahead_infer", "lookahead") and extends("lookahead", "lookahead_infer")
    assert not extends("reply_control", "lookahead")


def test_ppo_sample_true_samples_the_softmax_over_legal_actions():
    """sample=true draws from softmax(logits) over the legal actions (the policy itself); the default takes
    the argmax."""
    from allfives_env.agents.registry import make_agent
    from allfives_env.rules.game import Game
    from allfives_env.rules.view import player_view

    config = RulesConfig(num_players=2)
    game = Game(config)
    game.start_game(np.random.default_rng(5))
    rng = np.random.default_rng(1)
    while len(game.legal_actions()) < 3:
        game.step(int(rng.choice(game.legal_actions())))
    seat = game.to_move
    view = player_view(game, seat)
    legal = list(view.legal_actions)
    agent = make_agent("ppo:checkpoints/ppo_2p.pt,sample=true")
    agent.reset(seat, config, np.random.default_rng(0))

    class Recorder:
        def choice(self, k, p):
            self.p = np.asarray(p)
            return 0

    rec = Recorder()
    agent.rng = rec
    agent.act(view, legal)
    logits = agent.logits(agent.input_vector(view, legal), np.asarray(legal))[legal].astype(np.float64)
    expected = np.exp(logits - logits.max())
    expected /= expected.sum()
    assert rec.p == pytest.approx(expected, rel=1e-5, abs=1e-9)
    assert 0.01 < expected.max() < 0.999  # a real choice: a wrong temperature would show
    greedy = make_agent("ppo:checkpoints/ppo_2p.pt")
    greedy.reset(seat, config, np.random.default_rng(0))
    assert greedy.act(view, legal) == legal[int(np.argmax(logits))]
