"""Helpers shared by the rule tests (not a test module itself).

Deals are written with tile names ("1|4 0|6 ...") so the hand-worked
scenarios stay readable; moves are written as action names ("[1|4]@W",
"draw", "pass"), and a draw row may name the tile it must draw
("draw [0|3]").
"""

import numpy as np

from allfives_env.rules import Game, RulesConfig, action_name, parse_action
from allfives_env.rules.actions import DRAW, PASS, decode
from allfives_env.rules.tiles import parse_tile


def tiles(text):
    """Tile ids from a space-separated list of names, e.g. ``"1|4 6|6"``."""
    return [parse_tile(name) for name in text.split()]


def names(actions):
    """Readable, sorted names of action ids (for assertion messages and set checks)."""
    return sorted(action_name(a) for a in actions)


def placements(game, tile_text):
    """Sorted slot names where the named tile may be played now."""
    tile = parse_tile(tile_text)
    return sorted(name.split("@")[1] for name in names(game.legal_actions())
                  if "@" in name and parse_tile(name.split("@")[0]) == tile)


def fill_deal(config, hands, boneyard=None):
    """Complete partial hands with unused tiles in ascending id order; the
    boneyard is ``boneyard`` (if given, exactly) or the unused rest ascending."""
    size = config.tiles_per_hand
    hands = [tiles(h) if isinstance(h, str) else list(h) for h in hands]
    hands += [[] for _ in range(config.num_players - len(hands))]
    fixed_bones = tiles(boneyard) if isinstance(boneyard, str) else boneyard
    used = {t for h in hands for t in h} | set(fixed_bones or ())
    spare = [t for t in range(28) if t not in used]
    for hand in hands:
        while len(hand) < size:
            hand.append(spare.pop(0))
    return hands, (fixed_bones if fixed_bones is not None else spare)


def make_game(hands, boneyard=None, leader=0, scores=None, fill=True, **options):
    """A game whose first hand is the given deal (seat ``leader`` to lead).

    With ``fill`` the hands are completed from unused tiles (only for tables
    whose plays never depend on the filler); without it the deal must be exact.
    """
    config = RulesConfig.from_options(**options)
    if fill:
        hands, boneyard = fill_deal(config, hands, boneyard)
    else:
        hands = [tiles(h) if isinstance(h, str) else list(h) for h in hands]
        boneyard = tiles(boneyard) if isinstance(boneyard, str) else boneyard
    game = Game(config)
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=boneyard, leader=leader, scores=scores)
    return game


def play_rows(game, rows):
    """Replay a golden move table and check every row.

    Each row is ``(seat, action, count, points, scores)``: the seat that must
    be to move, the action ("[1|4]@W", "draw", "draw [0|3]", "pass"), the
    count (R14) the layout shows after the step, the points the play itself
    scored (R15, 0 for draws and passes) and every side's score after the
    step (hand-end bonus included). Before each play the count is predicted
    with ``count_after``; after each step ``step_gain`` must equal the change
    between this row's scores and the previous row's (start scores first).
    """
    expected_before = list(game.scores)
    for number, (seat, text, count, points, scores) in enumerate(rows, 1):
        where = f"row {number} ({seat}, {text!r})"
        assert not game.hand_over and not game.game_over, f"{where}: the hand is already over"
        assert game.to_move == seat, f"{where}: seat {game.to_move} is to move"
        drawn = None
        if text.startswith("draw") and text != "draw":
            drawn = parse_tile(text[4:])
            text = "draw"
        action = parse_action(text)
        legal = game.legal_actions()
        assert action in legal, f"{where}: not legal; legal are {names(legal)}"
        kind, tile, slot = decode(action)
        if kind == "play":
            assert game.count_after(tile, slot) == count, f"{where}: count_after"
        game.step(action)
        assert game.count == count, f"{where}: count {game.count} != {count}"
        event = game.events[-1] if game.events else None
        if kind == "play" or drawn is not None:
            assert event[:2] == (seat, action), f"{where}: last event {event}"
        if kind == "play":
            assert event[3] == points and event[4] == count, f"{where}: event {event}"
        else:
            assert points == 0, f"{where}: a draw or pass scores nothing"
        if drawn is not None:
            assert event[2] == drawn, f"{where}: drew {event[2]}, expected {drawn}"
        gain = [after - before for after, before in zip(scores, expected_before)]
        assert game.step_gain == gain, f"{where}: step_gain {game.step_gain} != {gain}"
        assert game.scores == list(scores), f"{where}: scores {game.scores} != {list(scores)}"
        expected_before = list(scores)
    return game


__all__ = ["DRAW", "PASS", "tiles", "names", "placements", "fill_deal", "make_game", "play_rows"]
