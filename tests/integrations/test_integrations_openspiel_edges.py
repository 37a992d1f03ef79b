"""OpenSpiel game edges: observations while a deal is still being drawn, and resampling for a seat that
does not exist.

* The module docstring: the deal (R4) is a run of chance nodes, one per dealt tile; no hand is in play until
  the last tile is dealt, and an observation there is the encoder's convention for "no hand": zeros. That
  holds for the first deal and for a later hand's deal (episode="game"), where the previous hand's
  finished position must not leak into the tensor.
* ``resample_with_rng(player_id, rng)`` takes a seat ``0..n-1``; any other id is a one-line ``ValueError``."""

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from allfives_env.integrations import openspiel as aos  # noqa: E402  (registers the game)


def _step_random(state, rng):
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        state.apply_action(int(rng.choice(outcomes, p=probs)))
    else:
        state.apply_action(int(rng.choice(state.legal_actions())))


def _zeros_while_dealing(state, game):
    for p in range(game.num_players()):
        assert not np.any(np.array(state.observation_tensor(p)))


@pytest.mark.parametrize("players", [2, 3, 4])
def test_observations_during_a_deal_are_zeros(players):
    game = pyspiel.load_game(aos.GAME_NAME, {"players": players, "episode": "game", "target": 1000, "max_hands": 3})
    rng = np.random.default_rng(players)
    state = game.new_initial_state()
    deals_seen, hands_started = 0, 0
    while not state.is_terminal() and hands_started < 2:
        if state.phase in ("leader", "deal"):
            _zeros_while_dealing(state, game)
            deals_seen += state.phase == "deal"
        was_dealing = state.phase == "deal"
        _step_random(state, rng)
        if was_dealing and state.phase == "play":
            hands_started += 1
            assert np.any(np.array(state.observation_tensor(0)))  # a hand in play: the tensor is filled
    assert hands_started == 2 and deals_seen > 0  # the second deal came after a finished hand


@pytest.mark.parametrize("player_id", [-1, 2, 2.0, "0"])
def test_resampling_for_a_seat_outside_the_game_is_refused(player_id):
    game = pyspiel.load_game(aos.GAME_NAME, {"players": 2})
    state = game.new_initial_state()
    rng = np.random.default_rng(0)
    while state.is_chance_node():
        _step_random(state, rng)
    with pytest.raises(ValueError, match="is not a seat; allowed 0..1"):
        state.resample_with_rng(player_id, np.random.default_rng(1))
    assert state.resample_with_rng(1, np.random.default_rng(1)).current_player() == state.current_player()
