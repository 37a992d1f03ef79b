"""The play screen's words about whose turn it is and what a move does: no "to move" once a hand is
over (nobody is to move until the next deal, R19), and a play of the mover's last tile is announced as
the domino that ends the hand (R20)."""

import numpy as np

from allfives_env.play.screen import build_screen, describe_move
from allfives_env.rules.actions import DRAW, PASS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game

NAMES = ["You", "Bot"]


def _game(seed=5):
    game = Game(RulesConfig(num_players=2))
    game.start_game(np.random.default_rng(seed))
    return game


def _tiles_line(game):
    lines = [line.plain for line in build_screen(game, NAMES, viewer=0)]
    return next(line for line in lines if line.startswith("Tiles in hand: "))


def test_the_turn_is_named_while_a_hand_runs_and_not_after_it_ends():
    game = _game()
    assert _tiles_line(game).endswith(f"| to move: {NAMES[game.to_move]}")
    while not game.hand_over:
        game.step(game.legal_actions()[0])
    assert not game.game_over  # a hand's end, the game goes on
    assert "to move" not in _tiles_line(game)


def test_only_a_play_of_the_last_tile_is_called_the_domino():
    for seed in range(50):
        game = _game(seed)
        while not game.hand_over:
            legal = game.legal_actions()
            placements = [a for a in legal if a not in (DRAW, PASS)]
            size = game.hand_size(game.to_move)
            if placements and game.lead_tile >= 0 and size <= 2:
                said = describe_move(game, placements[0])
                assert ("your last tile (domino)" in said) == (size == 1), (size, said)
                if size == 1:
                    return
            game.step(legal[0])
    raise AssertionError("no seed reached a last-tile play")  # pragma: no cover
