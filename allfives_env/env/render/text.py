"""Text pictures of a game: the layout around the spinner, open ends, count, scores."""

from ...rules.actions import SLOT_NAMES
from ...rules.tiles import TILE_HIGH, TILE_LOW, mask_to_tiles, tile_name


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


def layout_cross(game):
    """The layout as a cross of styled segments: the N arm above the spinner,
    the row W - centre - E, the S arm below, each line a list of ``(text, style)``.

    Styles: ``"tile"``, ``"spinner"``, ``"end"`` (an open end's label), ``"dim"``.
    Along every arm a tile is written with the half nearer the centre next to
    its neighbour: the W arm as ``[outer|inner]``, the E arm ``[inner|outer]``,
    the N arm top-down ``[outer|inner]``, the S arm top-down ``[inner|outer]``.
    """
    if game.lead_tile < 0:
        return [[("(empty layout: the next play leads)", "dim")]]
    spinner = game.spinner_tile
    row = [(f"W({_end(game, 0)}) ", "end")]
    for tile, inner, outer in reversed(arm_tiles(game, 0)):
        row += [_tile_segment(tile, outer, inner, spinner), (" ", "")]
    lead = game.lead_tile
    row.append(_tile_segment(lead, TILE_LOW[lead], TILE_HIGH[lead], spinner))
    for tile, inner, outer in arm_tiles(game, 1):
        row += [(" ", ""), _tile_segment(tile, inner, outer, spinner)]
    row.append((f" ({_end(game, 1)})E", "end"))
    if not game.branches_open:
        return [row]
    column = _spinner_column(row)
    north = [_branch_label(game, 2)]
    north += [[_tile_segment(t, o, i, spinner)] for t, i, o in reversed(arm_tiles(game, 2))]
    south = [[_tile_segment(t, i, o, spinner)] for t, i, o in arm_tiles(game, 3)]
    south.append(_branch_label(game, 3))
    return [*[_centred(segs, column) for segs in north], row, *[_centred(segs, column) for segs in south]]


def _tile_segment(tile, first, second, spinner):
    if tile == spinner:
        return (f"[{first}|{second}]*", "spinner")
    return (f"[{first}|{second}]", "tile")


def _spinner_column(row):
    """Column of the spinner tile's centre in a row of segments."""
    column = 0
    for text, style in row:
        if style == "spinner":
            return column + 2
        column += len(text)
    return column // 2  # pragma: no cover - branches open only with a spinner


def _centred(segments, column):
    """Indent a line so that its first segment is centred on ``column``."""
    text = segments[0][0].rstrip("*")
    return [(" " * max(0, column - len(text) // 2), ""), *segments]


def _branch_label(game, slot):
    label = [(f"{SLOT_NAMES[slot]}({_end(game, slot)})", "end")]
    if not game.arm_length[slot]:
        label = [(f"{SLOT_NAMES[slot]}({game.open_value[slot]})", "end"), (" not started, counts 0", "dim")]
    return label


def layout_lines(game):
    """Lines drawing the layout as a cross: N above, W - centre - E, S below."""
    return ["".join(text for text, _ in line).rstrip() for line in layout_cross(game)]


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
