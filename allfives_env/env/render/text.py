"""Text pictures of a game: the layout around the spinner, open ends, count, scores."""

from ...rules.actions import SLOT_NAMES
from ...rules.game import is_lone_spinner
from ...rules.tiles import TILE_HIGH, TILE_LOW, mask_to_tiles, tile_name


def arm_tiles(game, slot):
    """Tiles of one arm from the centre outward as ``(inner, outer)`` halves."""
    if game.is_lead:
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
    Each end is labelled with its open value, e.g. ``W(4) [4|0] [0|1] E(1)``
    (:func:`end_label`). :func:`layout_arms` draws the same layout one line per
    arm, for a screen too narrow for the cross.
    """
    if game.is_lead:
        return [[("(empty layout: the next play leads)", "dim")]]
    spinner = game.spinner_tile
    row = [(f"W({end_label(game, 0)}) ", "end")]
    for tile, inner, outer in reversed(arm_tiles(game, 0)):
        row += [_tile_segment(tile, outer, inner, spinner), (" ", "")]
    lead = game.lead_tile
    row.append(_tile_segment(lead, TILE_LOW[lead], TILE_HIGH[lead], spinner))
    for tile, inner, outer in arm_tiles(game, 1):
        row += [(" ", ""), _tile_segment(tile, inner, outer, spinner)]
    row.append((f" E({end_label(game, 1)})", "end"))
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
    label = [(f"{SLOT_NAMES[slot]}({end_label(game, slot)})", "end")]
    if not game.arm_length[slot]:
        label.append((" not started, counts 0", "dim"))
    return label


def layout_arms(game):
    """The layout one line per arm, each from the centre outward, as lines of
    ``(text, style)`` segments (styles as in :func:`layout_cross`): a heading
    naming the lead, then e.g. ``  W: [0|4] [4|4]  open 4x2``. Every tile is
    written ``[inner|outer]``, so neighbours show their matching halves."""
    if game.is_lead:
        return [[("(empty layout: the next play leads)", "dim")]]
    lead, spinner = game.lead_tile, game.spinner_tile
    head = [("Layout arm by arm, from the lead ", ""), _tile_segment(lead, TILE_LOW[lead], TILE_HIGH[lead], spinner),
            (" outward:", "")]
    return [head, *[_arm_line(game, slot) for slot in range(4) if game.open_value[slot] >= 0]]


def _arm_line(game, slot):
    line = [(f"  {SLOT_NAMES[slot]}:", "end")]
    for tile, inner, outer in arm_tiles(game, slot):
        line += [(" ", ""), _tile_segment(tile, inner, outer, game.spinner_tile)]
    if not game.arm_length[slot]:
        where = " (from the spinner)" if slot >= 2 else ""
        return line + [(f" not started{where}, open {end_label(game, slot)}", "dim"),
                       (", counts 0" if slot >= 2 else "", "dim")]
    return line + [(f"  open {end_label(game, slot)}", "end")]


def layout_lines(game):
    """Lines drawing the layout as a cross: N above, W - centre - E, S below."""
    return ["".join(text for text, _ in line).rstrip() for line in layout_cross(game)]


def end_label(game, slot) -> str:
    """An open end's value as written on the layout: ``"4"``, ``"4x2"`` for a
    double at the end (counted twice, R9/R14), ``"-"`` when the slot is not open.
    A lone spinner's two ends are written plainly (it counts once)."""
    value = game.open_value[slot]
    if value < 0:
        return "-"
    return f"{value}x2" if game.weight[slot] == 2 and not is_lone_spinner(game) else str(value)


def ends_text(game) -> str:
    """The open ends in one phrase, e.g. ``"W=4, E=6x2, N=1 (counts 0)"``."""
    ends = [f"{SLOT_NAMES[s]}={end_label(game, s)}" + (" (counts 0)" if _counts_nothing(game, s) else "")
            for s in range(4) if game.open_value[s] >= 0]
    note = " (the lone spinner counts once)" if is_lone_spinner(game) else ""
    return (", ".join(ends) or "none") + note


def _counts_nothing(game, slot):
    return game.weight[slot] == 0 and not is_lone_spinner(game)


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
        "Open ends: " + ends_text(game),
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
