"""``allfives replay``: step through a recorded game, checked against its record first."""

from rich.text import Text

from ..rules.actions import DRAW
from ..rules.record import read_records, replay
from .narrate import last_turn_sentence, lead_sentence, narrate_hand_end, scores_text
from .prompt import QUIT, QUIT_WORDS, read_line, show_error, shown, whole_number
from .screen import STYLES, build_screen, print_lines

REPLAY_HELP = "Enter or n: next step | b: back | h K: jump to hand K | e: end | q: quit"


def load_record(path, game_index=0):
    """The ``game_index``-th (0-based) game record of a JSONL file (see
    :func:`~allfives_env.rules.record.read_records`)."""
    records = read_records(path)
    if not records:
        raise ValueError(f"{path} holds no game records")
    if not 0 <= game_index < len(records):
        raise ValueError(f"--game {game_index + 1} is out of range; {path} holds games 1..{len(records)}")
    return records[game_index]


def replay_positions(record):
    """Replay a record with the engine, checking it (a ``ValueError`` says what
    does not check). Returns ``(positions, names)``: the positions as ``(hand
    index, game copy, sentences)`` (the first position of each hand is its
    deal) and the seat names."""
    steps = []
    final = replay(record, lambda hand, game, action: steps.append((hand, game.clone(), action)))
    names = record_names(record, final.num_players)
    return [(hand, game, _position_sentences(game, action, names)) for hand, game, action in steps], names


def _position_sentences(game, action, names):
    """What led to a position: the deal (``action`` None) or the step just taken."""
    if action is None:
        return [lead_sentence(game, names)]
    sentence = last_turn_sentence(game.events, names)
    if action == DRAW and not game.hand_over:
        sentence += " (the turn goes on)"
    return [sentence, *(narrate_hand_end(game, names) if game.hand_over else [])]


def check_sentence(record, final, names) -> str:
    """What the replay checked, and how the game ended (``final``: its last position); the terminal
    replay and the browser's say the same."""
    hands = len(record["hands"])
    if final.game_over:
        return (f"Record check passed: {hands} hand(s) replay to the recorded scores hand by hand and to the "
                f"final scores ({scores_text(final, names)}).")
    return (f"Record check passed: {hands} hand(s) replay to the recorded scores hand by hand; the game was "
            f"stopped unfinished in hand {final.hand_number + 1} ({scores_text(final, names)}).")


def record_names(record, num_players):
    """Seat names, with each seat's spec when the record has them (its control characters shown escaped)."""
    seats = record.get("seats")
    if seats:  # replay() has checked there is one per seat
        return [f"player_{i} ({printable(spec)})" for i, spec in enumerate(seats)]
    return [f"player_{i}" for i in range(num_players)]


def printable(text) -> str:
    """``text`` with each unprintable character (an escape sequence's ESC, a bell) written as its Python
    escape: a record is someone's file, and its text must not drive the terminal (clear it, retitle it)."""
    text = str(text)
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)


def replay_session(record, stdin, console, echo=False):
    """Step through a recorded game; returns 0. A record that does not replay (an illegal action, a score
    that does not match) raises ``ValueError`` before anything is shown, as ``replay --html`` does."""
    try:
        positions, names = replay_positions(record)
    except ValueError as exc:
        raise ValueError(f"Record check failed: {exc}") from None
    print_lines(console, [check_sentence(record, positions[-1][1], names)])
    hand_starts = [i for i, (k, _, _) in enumerate(positions) if i == 0 or positions[i - 1][0] != k]
    index = 0
    try:
        while index != QUIT:
            _show_position(console, positions, index, hand_starts, names)
            index = _ask_target(stdin, console, echo, index, len(positions), hand_starts)
    except KeyboardInterrupt:
        console.print("")
    return 0


def _show_position(console, positions, index, hand_starts, names):
    hand, game, sentences = positions[index]
    console.rule(style="dim")
    title = (f"Replay - hand {hand + 1}/{len(hand_starts)}, step {index - hand_starts[hand]}"
             f" (position {index + 1}/{len(positions)})" + (" - hand over" if game.hand_over else ""))
    print_lines(console, build_screen(game, names, None, sentences, (), title=title, width=console.width))
    print_lines(console, [Text(REPLAY_HELP, style=STYLES["dim"])])


def _ask_target(stdin, console, echo, index, total, hand_starts):
    """Ask until a replay command leads somewhere: a position index, or :data:`QUIT` (also at end of file)."""
    while True:
        line = read_line(stdin, console, "replay> ", echo)
        if line is None:
            return QUIT
        target = _replay_command(line, index, total, hand_starts)
        if target == QUIT or not isinstance(target, str):
            return target
        show_error(console, target)


def _replay_command(line, index, total, hand_starts):
    """The position a replay command leads to, :data:`QUIT`, or an error sentence."""
    words = line.strip().lower().split()
    if not words or words[0] in ("n", "next"):
        return index + 1 if index < total - 1 else "Already at the end: b to go back, q to quit."
    cmd = words[0]
    if cmd in QUIT_WORDS:
        return QUIT
    if cmd in ("b", "back"):
        return index - 1 if index > 0 else "Already at the start: Enter to go forward, q to quit."
    if cmd in ("e", "end"):
        return total - 1
    if cmd in ("h", "hand") or (cmd[0] == "h" and cmd[1:].isdigit()):
        return _hand_start(words[1:] if cmd in ("h", "hand") else [cmd[1:]], hand_starts)
    if cmd.isascii() and cmd.isdigit():
        hand = cmd if whole_number(cmd) is not None else "K"  # thousands of digits are not echoed back
        return f"To jump to hand {hand}, type 'h {hand}' (hands 1 to {len(hand_starts)})."
    return f"{shown(line)} is not a replay command; {REPLAY_HELP}."


def _hand_start(args, hand_starts):
    """The first position of the hand named by ``args``, or an error sentence."""
    number = whole_number(args[0]) if len(args) == 1 else None
    if number is not None and 1 <= number <= len(hand_starts):
        return hand_starts[number - 1]
    return f"Give a hand number from 1 to {len(hand_starts)}, e.g. 'h {min(2, len(hand_starts))}'."
