"""Text pictures of a game: the layout around the spinner, open ends, count, scores."""

from .rules.actions import SLOT_NAMES
from .rules.tiles import TILE_HIGH, TILE_LOW, mask_to_tiles, tile_name


def arm_tiles(game, slot):
    """Tiles of one arm from the centre outward as ``(inner, outer)`` halves."""
    if game.lead_tile < 0:
        return []
    if slot in (2, 3):
        value = TILE_LOW[game.spinner_tile]
    elif slot == 0:
        value = TILE_LOW[game.lead_tile]
    else:
        value = TILE_HIGH[game.lead_tile]
    oriented = []
    for tile in game.arms[slot]:
        low, high = TILE_LOW[tile], TILE_HIGH[tile]
        outer = high if low == value else low
        oriented.append((tile, value, outer))
        value = outer
    return oriented


def _half_pair(tile, inner, outer, spinner):
    mark = "*" if tile == spinner else ""
    return f"[{inner}|{outer}]{mark}"


def layout_lines(game):
    """Lines drawing the layout as a cross: N above, W - centre - E, S below."""
    if game.lead_tile < 0:
        return ["(empty layout: the next play leads)"]
    spinner = game.spinner_tile
    lead = game.lead_tile
    centre = tile_name(lead) + ("*" if lead == spinner else "")
    west = " ".join(_half_pair(t, o, i, spinner) for t, i, o in reversed(arm_tiles(game, 0)))
    east = " ".join(_half_pair(t, i, o, spinner) for t, i, o in arm_tiles(game, 1))
    row = " ".join(part for part in (f"W({_end(game, 0)})", west, centre, east, f"({_end(game, 1)})E") if part)
    lines = []
    if game.branches_open:
        north = " ".join(_half_pair(t, i, o, spinner) for t, i, o in arm_tiles(game, 2))
        south = " ".join(_half_pair(t, i, o, spinner) for t, i, o in arm_tiles(game, 3))
        lines.append(f"N({_end(game, 2)}) {north or '(not started)'}  [branch of spinner {tile_name(spinner)}]")
        lines.append(row)
        lines.append(f"S({_end(game, 3)}) {south or '(not started)'}")
    else:
        lines.append(row)
    return lines


def _end(game, slot):
    value = game.open_value[slot]
    if value < 0:
        return "-"
    weight = game.weight[slot]
    return f"{value}x2" if weight == 2 else (f"{value}" if weight else f"{value} (counts 0)")


def render_text(game, agent_names=None, show_seat=None):
    """A readable multi-line picture of the game.

    ``show_seat`` is the seat whose hand is shown (default: the seat to move).
    """
    n = game.num_players
    names = agent_names or [f"player_{i}" for i in range(n)]
    seat = game.to_move if show_seat is None else show_seat
    status = "game over" if game.game_over else ("hand over" if game.hand_over else f"to move: {names[game.to_move]}")
    lines = [
        f"Hand {game.hand_number + 1} | count {game.count} | boneyard {game.boneyard_left} | {status}",
        *layout_lines(game),
        "Open ends: " + ", ".join(f"{SLOT_NAMES[s]}={_end(game, s)}" for s in range(4) if game.open_value[s] >= 0),
        "Scores: " + " | ".join(_side_label(game, side, names) for side in range(game.num_sides)),
        "Hand sizes: " + ", ".join(f"{names[s]}={game.hand_size(s)}" for s in range(n)),
        f"{names[seat]} holds: " + " ".join(tile_name(t) for t in mask_to_tiles(game.hands[seat])),
    ]
    if game.game_over:
        lines.append("Winner: " + " and ".join(_side_label(game, s, names) for s in game.winners)
                     + (" (drawn)" if len(game.winners) > 1 else ""))
    return "\n".join(lines)


def _side_label(game, side, names):
    members = "+".join(names[s] for s in range(game.num_players) if game.seat_side[s] == side)
    score = game.scores[side]
    shown = int(score) if score == int(score) else score
    return f"{members} {shown}/{game.target:g}"
