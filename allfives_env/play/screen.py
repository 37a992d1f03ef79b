"""The screen builder: the picture of a position as :class:`rich.text.Text` lines.

The layout as a cross around the spinner, the open ends and the count, hand
sizes and the boneyard, the scores, what just happened, the viewer's hand and
the numbered legal moves with what each would score. Output goes through a
:class:`rich.console.Console` (:func:`make_console`): colours on a terminal,
plain text otherwise; every line fits the console's width (:func:`print_lines`)
and no tile is ever split across lines.
"""

from rich.console import Console
from rich.text import Text

from ..env.render.text import ends_text, layout_arms, layout_cross
from ..rules.actions import DRAW, PASS, SLOT_NAMES, slot_of, tile_of
from ..rules.scoring import points_for_count
from ..rules.tiles import mask_to_tiles, tile_name
from .narrate import count_text, format_points, side_label
from .wrap import fit_lines

STYLES = {
    "tile": "bold", "spinner": "bold yellow", "end": "cyan", "dim": "dim", "you": "bold green",
    "score": "bold green", "title": "bold magenta", "error": "bold red",
}


def make_console(file=None, color=None, width=None):
    """A rich Console on ``file`` (default stdout): colours when it is a terminal
    (``color=False`` turns them off, ``True`` forces them). ``width``: the
    columns to fit (default: the terminal's; 200 for another ``file``)."""
    width = width or (None if file is None else 200)
    if color is False:
        return Console(file=file, color_system=None, no_color=True, highlight=False, width=width)
    return Console(file=file, force_terminal=True if color else None, highlight=False, width=width)


def print_lines(console, lines):
    """Print str or Text ``lines``, each wrapped at spaces to the console's width."""
    for line in fit_lines(lines, console.width):
        console.print(line, soft_wrap=True)


def describe_move(game, action) -> str:
    """What a legal action does and would score, e.g. ``"[3|5] on E -> count 15, scores 15"``."""
    if action == DRAW:
        return f"draw from the boneyard (no tile fits; {game.boneyard_left} left)"
    if action == PASS:
        return "pass (no tile fits and the boneyard is empty)"
    tile, slot = tile_of(action), slot_of(action)
    count = game.count_after(tile, slot)
    result = count_text(count, points_for_count(count, game.divisor))
    if game.is_lead:
        return f"lead {tile_name(tile)} -> {result}"
    last = " - your last tile (domino)" if game.hand_size(game.to_move) == 1 else ""
    return f"{tile_name(tile)} on {SLOT_NAMES[slot]} (the {game.open_value[slot]} end) -> {result}{last}"


def styled(segments) -> Text:
    """A Text of ``(chunk, style)`` segments; a style is a :data:`STYLES` name or a rich style."""
    text = Text()
    for chunk, style in segments:
        text.append(chunk, style=STYLES.get(style, style) or None)
    return text


def build_screen(game, names, viewer=None, happened=(), moves=(), title=None, width=None) -> list:
    """The position as :class:`rich.text.Text` lines.

    ``viewer``: the seat whose hand is shown (``None``, or a hand that is over:
    every hand); ``happened``: sentences to show under "What happened";
    ``moves``: legal actions to list, numbered from 1; ``width``: the columns
    the layout must fit (a cross too wide is drawn one line per arm; the
    other lines are wrapped by :func:`print_lines`)."""
    lines = [Text(title or f"All Fives - hand {game.hand_number + 1}", style=STYLES["title"])]
    lines.append(styled([("Scores: ", "")] + _score_segments(game, names)))
    lines.append(Text(""))
    lines += [styled(line) for line in layout_rows(game, width)]
    lines.append(Text(""))
    lines.append(styled(_ends_segments(game)))
    sizes = ", ".join(f"{names[s]} {game.hand_size(s)}" for s in range(game.num_players))
    turn = "" if game.hand_over else f" | to move: {names[game.to_move]}"
    lines.append(Text(f"Tiles in hand: {sizes} | boneyard {game.boneyard_left}{turn}"))
    if happened:
        lines.append(Text("What happened:"))
        lines += [Text(f"  {sentence}") for sentence in happened]
    seats = range(game.num_players) if viewer is None or game.hand_over else (viewer,)
    lines += [_hand_line(game, names, seat, viewer) for seat in seats]
    if moves:
        lines.append(Text("Your moves:"))
        for i, action in enumerate(moves, 1):
            desc = describe_move(game, action)
            lines.append(styled([(f"  {i:>2}. ", ""), (desc, "score" if "scores" in desc else "")]))
    return lines


def layout_rows(game, width=None):
    """The layout as segment lines: the cross, or one line per arm when the
    cross is wider than ``width``."""
    cross = layout_cross(game)
    if width is None or max(sum(len(chunk) for chunk, _ in line) for line in cross) <= width:
        return cross
    return layout_arms(game)


def _hand_line(game, names, seat, viewer):
    label = "Your hand" if seat == viewer else f"{names[seat]} holds"
    text = styled([(f"{label}: ", "you" if seat == viewer else "")])
    tiles = mask_to_tiles(game.hands[seat])
    for i, tile in enumerate(tiles):
        style = "spinner" if tile == game.must_play and seat == game.to_move else "tile"
        text.append_text(styled([(" " if i else "", ""), (tile_name(tile), style)]))
    return text if tiles else text.append("no tiles", style=STYLES["dim"])


def _score_segments(game, names):
    segments = []
    for side in range(game.num_sides):
        if side:
            segments.append((" | ", ""))
        segments += [(f"{side_label(game, side, names)} ", ""), (format_points(game.scores[side]), "score")]
    segments.append((f" (target {game.target:g})", "dim"))
    return segments


def _ends_segments(game):
    scoring = points_for_count(game.count, game.divisor) > 0
    return [("Count: ", ""), (str(game.count), "score" if scoring else "tile"), ("  Open ends: ", ""),
            (ends_text(game), "end")]
