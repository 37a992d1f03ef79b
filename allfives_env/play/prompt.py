"""The input loop: read one choice from any text stream, explain bad input in one line, ask again."""

import re

from rich.text import Text

from ..rules.actions import DRAW, PASS, SLOT_NAMES, slot_of, tile_of
from ..rules.tiles import tile_index, tile_name
from .screen import STYLES
from .wrap import fit_text

QUIT = "quit"
QUIT_WORDS = ("q", "quit", "exit")
# ASCII digits only, as for a move's number (re.ASCII: "٣|٥" is not a tile)
_TILE = re.compile(r"^\[?\s*(\d)\s*[|/,-]?\s*(\d)\s*\]?(?:\s+(?:on\s+)?([wens]))?$", re.ASCII)
#: The longest number read as one: Python refuses to convert 4,301 digits or more, and no list is that long.
MAX_DIGITS = 6
#: The most of a bad answer quoted back in the one-line explanation.
SHOWN_CHARS = 40


def shown(text) -> str:
    """``text`` quoted for an error line, cut to :data:`SHOWN_CHARS` characters."""
    text = text.strip()
    return repr(text) if len(text) <= SHOWN_CHARS else repr(text[:SHOWN_CHARS]) + "…"


def whole_number(text):
    """``text`` as an int when it is ASCII digits of at most :data:`MAX_DIGITS`, else None."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= MAX_DIGITS else None


def parse_choice(text, moves, hand=None):
    """Read one answer to the move prompt: returns an action from ``moves``,
    :data:`QUIT`, or an error sentence (a ``str`` starting with ``"!"``).

    Accepted: a move's number; a tile (``[2|5]``, ``2|5``, ``2-5``), with its
    end when it fits more than one (``2|5 e``); ``q`` / ``quit``; an empty line
    when exactly one move is possible (a forced draw, pass or the drawn tile's
    only place). ``hand``: the tiles held, to say why a tile cannot be played."""
    answer = text.strip().lower()
    if answer in QUIT_WORDS:
        return QUIT
    if not answer:
        return moves[0] if len(moves) == 1 else f"! Nothing typed: {_hint(moves, 'type a move number')}."
    if answer.isascii() and answer.isdigit():
        k = whole_number(answer)
        on_list = k is not None and 1 <= k <= len(moves)
        label = shown(answer) if k is None else k
        return moves[k - 1] if on_list else f"! {label} is not on the list: {_hint(moves)}."
    if answer in ("?", "h", "help"):
        return "! Type a move's number, or a tile you hold such as 2|5 (2|5 e to say its end); q quits."
    match = _TILE.match(answer)
    if match:
        return _tile_choice(match, moves, hand)
    return f"! {shown(text)} is not a move: {_hint(moves)}."


def _hint(moves, verb="type a number"):
    """What to type instead, for a bad answer."""
    if len(moves) == 1:
        return "press Enter (or type 1) to make the only move, or q to quit"
    return f"{verb} from 1 to {len(moves)}, or q to quit"


def _tile_choice(match, moves, hand):
    """The move a typed tile (and end) names, or why it names none."""
    low, high = sorted(int(d) for d in match.group(1, 2))
    if high > 6:
        return f"! {match.group(0)!r} is not a tile: halves go from 0 to 6; {_hint(moves)}."
    tile = tile_index(low, high)
    name = tile_name(tile)
    fits = [(i, a) for i, a in enumerate(moves, 1) if a < DRAW and tile_of(a) == tile]
    slot = (match.group(3) or "").upper()
    at = [(i, a) for i, a in fits if SLOT_NAMES[slot_of(a)] == slot] if slot else fits
    if len(at) == 1:
        return at[0][1]
    where = ", ".join(f"{i} ({SLOT_NAMES[slot_of(a)]})" for i, a in fits)
    if at:
        return f"! {name} fits more than one end: type its number, {where}."
    if fits:
        return f"! {name} does not fit on {slot}: type {where}."
    if hand is not None and tile not in hand:
        return f"! You do not hold {name}: {_hint(moves)}."
    return f"! {name} fits no open end now: {_hint(moves)}."


def prompt_text(moves) -> str:
    if moves == [DRAW]:
        return "You have no tile that fits: press Enter to draw (q to quit): "
    if moves == [PASS]:
        return "Nothing fits and the boneyard is empty: press Enter to pass (q to quit): "
    if len(moves) == 1:
        return "Only one move: press Enter to play it (q to quit): "
    return f"Your move (1-{len(moves)}, q to quit): "


def read_line(stream, console, prompt, echo):
    """Show ``prompt`` (wrapped to the console, with room left for the answer)
    and read a line from ``stream``; ``None`` at end of file. With ``echo`` the
    answer is printed after the prompt (for non-terminal input)."""
    *first, last = fit_text(prompt.rstrip(" "), max(20, console.width - 8))
    for line in first:
        console.print(line, soft_wrap=True)
    console.print(last.append(" "), end="", soft_wrap=True)
    console.file.flush()
    try:
        line = stream.readline()
    except UnicodeDecodeError:
        line = "(unreadable input)\n"
    if not line:
        console.print("")
        return None
    if echo:
        console.print(line.rstrip("\n")[: max(1, console.width - len(last))], soft_wrap=True, markup=False)
    return line


def show_error(console, sentence):
    for line in fit_text(Text(sentence, style=STYLES["error"]), console.width):
        console.print(line, soft_wrap=True)


def ask_move(moves, stream, console, echo=False, hand=None):
    """Ask until a valid answer: returns an action or :data:`QUIT` (also at end of file)."""
    while True:
        line = read_line(stream, console, prompt_text(moves), echo)
        if line is None:
            return QUIT
        choice = parse_choice(line, moves, hand)
        if isinstance(choice, str) and choice.startswith("!"):
            show_error(console, choice[2:])
            continue
        return choice


def wait_for_enter(stream, console, prompt, echo=False):
    """Show ``prompt`` and wait for a line: ``True`` to go on, ``False`` on q or end of file."""
    line = read_line(stream, console, prompt, echo)
    return line is not None and line.strip().lower() not in QUIT_WORDS
