"""The narrator: the engine's events and hand ends as sentences.

For example "player_1 drew 2 tiles and played [3|5] on N: count 15, scores 15".
An event is the engine's ``(seat, action, tile, points, count)`` tuple (see
:mod:`allfives_env.rules.game`).
"""

from ..rules.actions import DRAW, PASS, SLOT_NAMES, slot_of
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
            parts.append(f"played {tile_name(tile)} on {SLOT_NAMES[slot_of(action)]}: {count_text(count, points)}")
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


def _is_you(name) -> bool:
    return name == "You" or name.startswith("You ")


def _verb(game, side, names, singular):
    """``singular`` ("leads", "wins") agreeing with a side: "You lead", "a & c win"."""
    members = [names[s] for s in range(game.num_players) if game.seat_side[s] == side]
    return singular[:-1] if len(members) > 1 or _is_you(members[0]) else singular


def lead_sentence(game, names) -> str:
    """Who leads the freshly dealt hand: ``"Hand 2 is dealt; player_1 leads."``."""
    name = names[game.leader]
    return f"Hand {game.hand_number + 1} is dealt; {name} {'lead' if _is_you(name) else 'leads'}."


def scores_text(game, names, sides=None) -> str:
    """Labelled scores, e.g. ``"player_0 55, player_1 35"`` (``sides``: which, in which order)."""
    sides = range(game.num_sides) if sides is None else sides
    return ", ".join(f"{side_label(game, s, names)} {format_points(game.scores[s])}" for s in sides)


def narrate_hand_end(game, names) -> list:
    """Sentences for the end of a hand: how it ended, the pips left, who won it
    and the bonus, the scores (and the game's end, if it ended)."""
    result = game.hand_result
    lines = []
    if result is not None:
        pips = ", ".join(f"{names[s]} {p}" for s, p in enumerate(result.seat_pips))
        lines += [_hand_end_head(game, names), f"Pips left: {pips}.", _bonus_sentence(game, result, names),
                  f"Scores after hand {game.hand_number + 1}: {scores_text(game, names)} (target {game.target:g})."]
    if game.game_over:
        lines.append(winner_sentence(game, names))
    return lines


def _hand_end_head(game, names):
    number = game.hand_number + 1
    if game.hand_result.kind == "domino":
        who = names[game.events[-1][0]] if game.events else "?"
        return f"Hand {number} over by a domino: {who} played their last tile."
    return f"Hand {number} blocked: nobody can play and the boneyard is empty."


def _bonus_sentence(game, result, names):
    """Who won the hand and what the hand's end scored (R21-R24, V4)."""
    winner = result.winner
    won = "" if winner is None else f"{side_label(game, winner, names)} {_verb(game, winner, names, 'wins')} the hand"
    if game.config.hand_scoring == "penalty":  # V4: no bonus; everybody pays its pips, rounded (maybe to 0)
        paid = ", ".join(f"{side_label(game, s, names)} {format_points(p)}" for s, p in enumerate(result.points))
        return (f"{won}; " if won else "") + f"each side pays its pips: {paid}."
    if winner is not None:
        bonus = result.points[winner]
        return f"{won}: bonus +{format_points(bonus)}." if bonus else f"{won}: the bonus rounds to 0."
    split = [s for s, p in enumerate(result.points) if p > 0]
    if split:
        who = " and ".join(side_label(game, s, names) for s in split)
        return f"{who} tie for the fewest pips and split the bonus: +{format_points(result.points[split[0]])} each."
    return "Tied for the fewest pips: nobody wins the hand, no bonus."


def winner_sentence(game, names) -> str:
    """``"Game over: player_1 wins with 250; player_0 155."`` (the winner's score first)."""
    others = [s for s in range(game.num_sides) if s not in game.winners]
    rest = f"; {scores_text(game, names, others)}" if others else ""
    score = format_points(game.scores[game.winners[0]])
    if len(game.winners) > 1:
        drawn = " and ".join(side_label(game, s, names) for s in game.winners)
        return f"Game over: drawn between {drawn} with {score} each{rest}."
    winner = game.winners[0]
    return f"Game over: {side_label(game, winner, names)} {_verb(game, winner, names, 'wins')} with {score}{rest}."
