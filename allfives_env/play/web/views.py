"""A position as plain data for the browser: what the page draws, and only what its viewer may see.

:func:`position_view` turns a :class:`~allfives_env.rules.game.Game` into a JSON-ready dict:
the layout as a cross around the spinner (tiles oriented as the terminal's
:func:`~allfives_env.env.render.text.layout_cross` writes them), the open ends and the count,
each seat's hand size, the hands the viewer may see, the legal moves with what each would
score, the scores and what happened. The page only draws it; every rule stays in the engine.

Visibility is the terminal's: a seated viewer sees its own hand until the hand is over, then
every hand; ``viewer=None`` (watching agents, replaying a record) sees every hand. Another
seat's drawn tiles are never named to a seated viewer (the narration hides them).
"""

from ...env.render.text import arm_tiles, end_label
from ...rules.actions import DRAW, PASS, SLOT_NAMES, slot_of, tile_of
from ...rules.game import is_lone_spinner
from ...rules.scoring import points_for_count
from ...rules.tiles import TILE_HIGH, TILE_LOW, mask_to_tiles, tile_name
from ..narrate import narrate_hand_end, side_label
from ..screen import describe_move


def position_view(game, names, viewer=None, happened=(), sheet=None) -> dict:
    """The position of ``game`` as seen by ``viewer`` (a seat, or ``None`` for a spectator).

    ``happened``: sentences to list (the hand so far); ``sheet``: a
    :class:`~allfives_env.play.table.ScoreSheet` to include. The legal moves are
    included when ``viewer`` is the seat to move."""
    to_move = None if game.hand_over else game.to_move
    return {
        "hand_number": game.hand_number + 1,
        "target": game.target,
        "layout": layout_view(game),
        "count": game.count,
        "count_points": points_for_count(game.count, game.divisor) if not game.is_lead else 0,
        "boneyard": game.boneyard_left,
        "seats": [_seat_view(game, names, seat) for seat in range(game.num_players)],
        "sides": [_side_view(game, names, side) for side in range(game.num_sides)],
        "viewer": viewer,
        "to_move": to_move,
        "hands": {str(seat): hand_view(game, seat) for seat in visible_seats(game, viewer)},
        "moves": moves_view(game) if viewer is not None and viewer == to_move else [],
        # the drawn tile that must be played is the drawer's secret until it is played
        "must_play": game.must_play if game.must_play >= 0 and to_move is not None and viewer in (None, to_move)
        else None,
        "last_tile": _last_played(game),
        "happened": list(happened),
        "hand_over": game.hand_over,
        "game_over": game.game_over,
        "hand_end": _hand_end_view(game, names),
        "winners": list(game.winners),
        "sheet": sheet_rows(sheet, game) if sheet is not None else None,
    }


def visible_seats(game, viewer):
    """The seats whose tiles ``viewer`` may see: every seat for a spectator or after the hand."""
    if viewer is None or game.hand_over:
        return list(range(game.num_players))
    return [viewer]


def hand_view(game, seat) -> list:
    """A seat's tiles, lowest id first, each ``{"tile", "name", "pips"}``."""
    return [_tile(tile, TILE_LOW[tile], TILE_HIGH[tile]) for tile in mask_to_tiles(game.hands[seat])]


def moves_view(game) -> list:
    """The legal moves of the seat to move: kind, tile, end, the count after and its points, and a sentence."""
    moves = []
    for action in game.legal_actions():
        move = {"action": action, "text": describe_move(game, action)}
        if action in (DRAW, PASS):
            move.update(kind="draw" if action == DRAW else "pass", tile=None, name=None, slot=None, count=None,
                        points=0)
        else:
            tile, slot = tile_of(action), slot_of(action)
            count = game.count_after(tile, slot)
            move.update(kind="lead" if game.is_lead else "play", tile=tile, name=tile_name(tile),
                        slot=None if game.is_lead else SLOT_NAMES[slot], count=count,
                        points=points_for_count(count, game.divisor))
        moves.append(move)
    return moves


def layout_view(game) -> dict:
    """The layout as a cross: ``row`` (W arm, lead, E arm, left to right), ``north`` and
    ``south`` (top to bottom), ``spinner`` (its index in ``row``, or ``None``) and the four
    ``ends``. Each tile is ``{"tile", "name", "pips": [first, second], "double", "spinner"}``
    with ``first`` drawn left (or on top), so that neighbours show matching halves."""
    ends = [_end_view(game, slot) for slot in range(4)]
    if game.is_lead:
        return {"empty": True, "row": [], "north": [], "south": [], "spinner": None, "ends": ends}
    spinner = game.spinner_tile
    row = [_tile(t, outer, inner, spinner) for t, inner, outer in reversed(arm_tiles(game, 0))]
    lead = game.lead_tile
    row.append(_tile(lead, TILE_LOW[lead], TILE_HIGH[lead], spinner))
    row += [_tile(t, inner, outer, spinner) for t, inner, outer in arm_tiles(game, 1)]
    north = [_tile(t, outer, inner, spinner) for t, inner, outer in reversed(arm_tiles(game, 2))]
    south = [_tile(t, inner, outer, spinner) for t, inner, outer in arm_tiles(game, 3)]
    at = next((i for i, cell in enumerate(row) if cell["spinner"]), None)
    return {"empty": False, "row": row, "north": north, "south": south, "spinner": at,
            "branches_open": game.branches_open, "ends": ends}


def sheet_rows(sheet, game) -> list:
    """The score sheet's rows (the hand in progress last), each ``{"hand", "how", "gains", "totals"}``."""
    rows = sheet.rows_so_far(game)
    return [{"hand": number, "how": how, "gains": gains, "totals": totals} for number, how, gains, totals in rows]


def _tile(tile, first, second, spinner=-1):
    return {"tile": tile, "name": tile_name(tile), "pips": [first, second], "double": first == second,
            "spinner": tile == spinner}


def _end_view(game, slot):
    value = game.open_value[slot]
    counts = value >= 0 and (game.weight[slot] > 0 or is_lone_spinner(game))
    return {"slot": SLOT_NAMES[slot], "open": value >= 0, "value": value, "label": end_label(game, slot),
            "counts": counts, "started": game.arm_length[slot] > 0}


def _seat_view(game, names, seat):
    return {"seat": seat, "name": names[seat], "side": game.seat_side[seat], "hand_size": game.hand_size(seat)}


def _side_view(game, names, side):
    return {"side": side, "label": side_label(game, side, names), "score": game.scores[side],
            "winner": side in game.winners}


def _last_played(game):
    """The tile of the hand's latest step when it was a play (the page marks it), else ``None``."""
    if game.events and game.events[-1][1] < DRAW:
        return game.events[-1][2]
    return None


def _hand_end_view(game, names):
    """How the hand ended, as data and as the narrator's sentences (``None`` while it goes on). A game
    won at once by reaching the target has no hand result, only the winner's sentence."""
    if not game.hand_over:
        return None
    result = game.hand_result
    view = {"kind": "target reached", "winner": None, "points": None, "pips": None}
    if result is not None:
        view = {"kind": result.kind, "winner": result.winner, "points": list(result.points),
                "pips": list(result.seat_pips)}
    return {**view, "sentences": narrate_hand_end(game, names)}
