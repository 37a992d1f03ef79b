"""The input loop: read one choice from any text stream, explain bad input in one line, ask again."""

from rich.text import Text

from ..rules.actions import DRAW, PASS
from .screen import STYLES

QUIT = "quit"


def parse_choice(text, moves):
    """Read one answer to the move prompt: returns an action from ``moves``,
    :data:`QUIT`, or an error sentence (a ``str`` starting with ``"!"``).

    Accepted: a move's number; ``q`` / ``quit``; an empty line when exactly
    one move is possible (a forced draw, pass or the drawn tile's only place)."""
    answer = text.strip().lower()
    n = len(moves)
    if answer in ("q", "quit", "exit"):
        return QUIT
    if not answer:
        if n == 1:
            return moves[0]
        return f"! Nothing typed: type a move number from 1 to {n}, or q to quit."
    if answer.isdigit():
        k = int(answer)
        if 1 <= k <= n:
            return moves[k - 1]
        return f"! {k} is not on the list: type a number from 1 to {n}, or q to quit."
    return f"! {text.strip()!r} is not a move: type a number from 1 to {n}, or q to quit."


def prompt_text(moves) -> str:
    if moves == [DRAW]:
        return "You have no tile that fits: press Enter to draw (q to quit): "
    if moves == [PASS]:
        return "Nothing fits and the boneyard is empty: press Enter to pass (q to quit): "
    if len(moves) == 1:
        return "Only one move: press Enter to play it (q to quit): "
    return f"Your move (1-{len(moves)}, q to quit): "


def read_line(stream, console, prompt, echo):
    """Show ``prompt`` and read a line from ``stream``; ``None`` at end of file.
    With ``echo`` the answer is printed after the prompt (for non-terminal input)."""
    console.print(prompt, end="", soft_wrap=True)
    console.file.flush()
    line = stream.readline()
    if not line:
        console.print("")
        return None
    if echo:
        console.print(line.rstrip("\n"), soft_wrap=True, markup=False)
    return line


def show_error(console, sentence):
    console.print(Text(sentence, style=STYLES["error"]), soft_wrap=True)


def ask_move(moves, stream, console, echo=False):
    """Ask until a valid answer: returns an action or :data:`QUIT` (also at end of file)."""
    while True:
        line = read_line(stream, console, prompt_text(moves), echo)
        if line is None:
            return QUIT
        choice = parse_choice(line, moves)
        if isinstance(choice, str) and choice.startswith("!"):
            show_error(console, choice[2:])
            continue
        return choice
