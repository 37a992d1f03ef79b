"""The screen builder: the picture of a position as :class:`rich.text.Text` lines.

The layout as a cross around the spinner, the open ends and the count, hand
sizes and the boneyard, the scores, what just happened, the viewer's hand and
the numbered legal moves with what each would score. Output goes through a
:class:`rich.console.Console` (:func:`make_console`): colours on a terminal,
plain text otherwise.
"""

from rich.console import Console
from rich.text import Text

from ..env.render.text import layout_cross
from ..rules.actions import DRAW, PASS, SLOT_NAMES
from ..rules.scoring import points_for_count
from ..rules.tiles import mask_to_tiles, tile_name
from .narrate import count_text, format_points, side_label

STYLES = {
    "tile": "bold", "spinner": "bold yellow", "end": "cyan", "dim": "dim", "you": "bold green",
    "score": "bold green", "title": "bold magenta", "error": "bold red",
}


def make_console(file=None, color=None, width=None):
    """A rich Console on ``file`` (default stdout): colours when it is a terminal
    (``color=False`` turns them off, ``True`` forces them)."""
    if color is False:
        return Console(file=file, color_system=None, no_color=True, highlight=False, width=width or 200)
    return Console(file=file, force_terminal=True if color else None, highlight=False,
                   width=width or (None if file is None else 200))


def print_lines(console, lines):
    for line in lines:
        console.print(line, soft_wrap=True)


def describe_move(game, action) -> str:
    """What a legal action does and would score, e.g. ``"[3|5] on E -> count 15, scores 15"``."""
    if action == DRAW:
        return f"draw from the boneyard (no tile fits; {game.boneyard_left} left)"
    if action == PASS:
        return "pass (no tile fits and the boneyard is empty)"
    tile, slot = action >> 2, action & 3
    count = game.count_after(tile, slot)
    result = count_text(count, points_for_count(count, game.divisor))
    if game.lead_tile < 0:
        return f"lead {tile_name(tile)} -> {result}"
    last = " - your last tile (domino)" if game.hand_size(game.to_move) == 1 else ""
    return f"{tile_name(tile)} on {SLOT_NAMES[slot]} (the {game.open_value[slot]} end) -> {result}{last}"


def styled(segments) -> Text:
    """A Text of ``(chunk, style)`` segments; a style is a :data:`STYLES` name or a rich style."""
    text = Text()
    for chunk, style in segments:
        text.append(chunk, style=STYLES.get(style, style) or None)
    return text


def build_screen(game, names, viewer=None, happened=(), moves=(), title=None) -> list:
    """The position as :class:`rich.text.Text` lines.

    ``viewer``: the seat whose hand is shown (``None``: every hand, for
    spectators); ``happened``: sentences to show under "What happened";
    ``moves``: legal actions to list, numbered from 1."""
    lines = [Text(title or f"All Fives - hand {game.hand_number + 1}", style=STYLES["title"])]
    lines.append(styled([("Scores: ", "")] + _score_segments(game, names)))
    lines.append(Text(""))
    lines += [styled(line) for line in layout_cross(game)]
    lines.append(Text(""))
    lines.append(styled(_ends_segments(game)))
    sizes = ", ".join(f"{names[s]} {game.hand_size(s)}" for s in range(game.num_players))
    turn = "" if game.hand_over else f" | to move: {names[game.to_move]}"
    lines.append(Text(f"Tiles in hand: {sizes} | boneyard {game.boneyard_left}{turn}"))
    if happened:
        lines.append(Text("What happened:"))
        lines += [Text(f"  {sentence}") for sentence in happened]
    seats = range(game.num_players) if viewer is None else (viewer,)
    lines += [_hand_line(game, names, seat, viewer) for seat in seats]
    if moves:
        lines.append(Text("Your moves:"))
        for i, action in enumerate(moves, 1):
            desc = describe_move(game, action)
            lines.append(styled([(f"  {i:>2}. ", ""), (desc, "score" if "scores" in desc else "")]))
    return lines


def _hand_line(game, names, seat, viewer):
    label = "Your hand" if seat == viewer else f"{names[seat]} holds"
    text = styled([(f"{label}: ", "you" if seat == viewer else "")])
    for i, tile in enumerate(mask_to_tiles(game.hands[seat])):
        style = "spinner" if tile == game.must_play and seat == game.to_move else "tile"
        text.append_text(styled([(" " if i else "", ""), (tile_name(tile), style)]))
    return text


def _score_segments(game, names):
    segments = []
    for side in range(game.num_sides):
        if side:
            segments.append((" | ", ""))
        segments += [(f"{side_label(game, side, names)} ", ""), (format_points(game.scores[side]), "score")]
    segments.append((f" (target {game.target:g})", "dim"))
    return segments


def _ends_segments(game):
    ends = [f"{SLOT_NAMES[s]}={game.open_value[s]}" + ("x2" if game.weight[s] == 2 else "")
            + (" (counts 0)" if game.weight[s] == 0 else "") for s in range(4) if game.open_value[s] >= 0]
    scoring = points_for_count(game.count, game.divisor) > 0
    return [("Open ends: ", ""), (", ".join(ends) or "none", "end"), ("  Count: ", ""),
            (str(game.count), "score" if scoring else "tile")]
