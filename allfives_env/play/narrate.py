"""The narrator: the engine's events and hand ends as sentences.

For example "player_1 drew 2 tiles and played [3|5] on N: count 15, scores 15".
An event is the engine's ``(seat, action, tile, points, count)`` tuple (see
:mod:`allfives_env.rules.game`).
"""

from ..rules.actions import DRAW, PASS, SLOT_NAMES
from ..rules.tiles import tile_name


def format_points(x) -> str:
    """A score as text: whole points without a decimal point, half points as ``2.5``."""
    return str(int(x)) if x == int(x) else str(x)


def count_text(count, points) -> str:
    """``"count 15, scores 15"``, or ``"count 7"`` when the count scores nothing."""
    return f"count {count}, scores {format_points(points)}" if points else f"count {count}"


def side_label(game, side, names) -> str:
    """A side's name: its seat's name, or both partners' (``"a & c"``)."""
    return " & ".join(names[s] for s in range(game.num_players) if game.seat_side[s] == side)


def _drawn_text(drawn, reveal):
    if reveal and all(t >= 0 for t in drawn):
        return "drew " + ", ".join(tile_name(t) for t in drawn)
    return f"drew {len(drawn)} tile" + ("s" if len(drawn) != 1 else "")


def narrate_turn(turn, names, reveal=True, lead=False) -> str:
    """One sentence for one seat's turn: ``turn`` is its consecutive events
    ``(seat, action, tile, points, count)`` (draws, then a play or a pass, or
    draws only while the turn goes on). ``reveal``: show the drawn tiles;
    ``lead``: the turn is the hand's lead."""
    seat = turn[0][0]
    drawn = [tile for _, action, tile, _, _ in turn if action == DRAW]
    parts = [_drawn_text(drawn, reveal)] if drawn else []
    _, action, tile, points, count = turn[-1]
    if action == PASS:
        parts.append("passed (nothing fits, the boneyard is empty)")
    elif action < DRAW:
        if lead:
            parts.append(f"led {tile_name(tile)}: {count_text(count, points)}")
        else:
            parts.append(f"played {tile_name(tile)} on {SLOT_NAMES[action & 3]}: {count_text(count, points)}")
    return f"{names[seat]} " + " and ".join(parts)


def split_turns(events) -> list:
    """Group a hand's events into turns: lists of consecutive events of one seat
    ending with a play or a pass (the last turn may be draws only, while it goes on)."""
    turns, current = [], []
    for event in events:
        current.append(event)
        if event[1] != DRAW:
            turns.append(current)
            current = []
    if current:
        turns.append(current)
    return turns


def last_turn_sentence(events, names, viewer=None) -> str:
    """:func:`narrate_turn` for the hand's latest turn; another seat's drawn tiles
    are hidden from ``viewer`` (``None``: a spectator sees everything)."""
    turns = split_turns(events)
    turn = turns[-1]
    return narrate_turn(turn, names, reveal=viewer is None or turn[0][0] == viewer, lead=len(turns) == 1)


def lead_sentence(game, names) -> str:
    """Who leads the freshly dealt hand."""
    return f"Hand {game.hand_number + 1} is dealt; the lead is {names[game.leader]}'s."


def narrate_hand_end(game, names) -> list:
    """Sentences for the end of a hand (and of the game, if it ended)."""
    result = game.hand_result
    lines = []
    if result is not None:
        pips = ", ".join(f"{names[s]} {p}" for s, p in enumerate(result.seat_pips))
        if result.kind == "domino":
            who = names[game.events[-1][0]] if game.events else "?"
            head = f"Hand {game.hand_number + 1} over: {who} played their last tile (domino)."
        else:
            head = f"Hand {game.hand_number + 1} blocked: nobody can play and the boneyard is empty."
        lines.append(f"{head} Pips left: {pips}.")
        gains = [f"{side_label(game, side, names)} {'+' if p > 0 else ''}{format_points(p)}"
                 for side, p in enumerate(result.points) if p]
        lines.append("Hand-end points: " + (", ".join(gains) if gains else "none (a tie)") + ".")
    if game.game_over:
        lines.append(winner_sentence(game, names))
    return lines


def winner_sentence(game, names) -> str:
    scores = "-".join(format_points(s) for s in game.scores)
    if len(game.winners) > 1:
        return f"Game over: drawn between {' and '.join(side_label(game, s, names) for s in game.winners)} ({scores})."
    winner = game.winners[0]
    return f"Game over: {side_label(game, winner, names)} win{'s' if _single(game, winner) else ''} ({scores})."


def _single(game, side):
    return sum(1 for s in range(game.num_players) if game.seat_side[s] == side) == 1
