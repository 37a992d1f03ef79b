"""The text picture a person reads (``render_text``, the env's ``ansi`` render): the hand shown is the
one asked for, half-point scores are written exactly (R24), and a game won by one side is not called
drawn (R25)."""

import numpy as np

from allfives_env.env.render.text import render_text
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.tiles import mask_to_tiles, tile_name


def _game(num_players=2, scores=None, seed=3):
    game = Game(RulesConfig(num_players=num_players))
    game.start_game(np.random.default_rng(seed), scores=scores)
    return game


def _held_line(text, name):
    return next(line for line in text.splitlines() if line.startswith(f"{name} holds: "))


def test_show_seat_picks_the_hand_shown_not_the_mover():
    game = _game(3)
    other = (game.to_move + 1) % 3
    text = render_text(game, show_seat=other)
    shown = _held_line(text, f"player_{other}")
    assert shown == f"player_{other} holds: " + " ".join(tile_name(t) for t in mask_to_tiles(game.hands[other]))
    assert f"player_{game.to_move} holds" not in text  # the mover's hand stays hidden
    # by default the mover's hand is the one shown
    assert f"player_{game.to_move} holds: " in render_text(game)


def test_half_point_scores_are_written_exactly():
    """R24: a score may be a whole or half point; the score line must not round 12.5 down to 12."""
    game = _game(3, scores=[12.5, 0, 7])
    scores = next(line for line in render_text(game).splitlines() if line.startswith("Scores: "))
    assert "player_0 12.5/" in scores
    assert "player_1 0/" in scores and "player_2 7/" in scores  # whole points without ".0"


def test_a_game_won_by_one_side_is_not_called_drawn():
    """R25: the winner line says "(drawn)" only when more than one side won."""
    for seed in range(20):
        game = _game(2, scores=[245, 240], seed=seed)
        while not game.game_over:
            if game.hand_over:
                game.start_next_hand(np.random.default_rng(seed))
                continue
            game.step(game.legal_actions()[0])
        if len(game.winners) == 1:
            break
    assert len(game.winners) == 1
    winner = next(line for line in render_text(game).splitlines() if line.startswith("Winner: "))
    assert "(drawn)" not in winner
    assert winner.startswith(f"Winner: player_{game.winners[0]} ")
