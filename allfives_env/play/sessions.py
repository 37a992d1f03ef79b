"""``allfives play`` and ``allfives watch``: a person against agents, or agents among themselves."""

import time
from contextlib import contextmanager

from ..arena.game import AgentError
from ..rules.record import write_records
from ..rules.tiles import mask_to_tiles
from .narrate import lead_sentence
from .prompt import QUIT, ask_move, wait_for_enter
from .screen import build_screen, print_lines
from .table import Table

HAND_END_PAUSE = 4  # in ``watch``, a hand's end stays on screen this many delays


def play_session(config, human_seat, agents, names, seed, stdin, console, deal=None, echo=False,
                 record_path=None, seat_specs=None):
    """A person at ``human_seat`` against ``agents`` (one per seat, ``None`` at
    the person's seat). Reads moves from ``stdin``. After each hand the final
    position and the hand's scoring are shown and the next deal waits for
    Enter. Returns 0 when the game ends or the person stops it (``q``, end of
    file or Ctrl-C): the score sheet is printed either way. An agent that fails
    mid-game raises :class:`~allfives_env.arena.game.AgentError` after the
    position and score sheet so far are printed and the game so far is recorded."""
    table = Table(config, agents, names, seed, deal, viewer=human_seat)
    seats = seat_specs or names
    with _kept_if_an_agent_fails(console, table, record_path, seats) as happened:
        left = _play_until_over(table, stdin, console, echo, happened)
    _finish(console, table, happened, "You left the game; here is the score sheet so far." if left else None)
    _write_record(record_path, table, seats)
    return 0


def _play_until_over(table, stdin, console, echo, happened):
    """The person's game until it ends or they stop it (returns True then). ``happened`` (a list, kept
    up to date in place) holds the sentences not yet shown."""
    game = table.game
    try:
        while not game.game_over:
            if game.hand_over:
                if not _hand_end_pause(console, table, happened, stdin, echo):
                    return True
                happened[:] = table.next_hand()
            elif game.to_move != table.viewer:
                happened += table.step(table.agent_action())
            else:
                action = _ask_person(console, table, happened, stdin, echo)
                if action == QUIT:
                    return True
                happened[:] = table.step(action)
    except KeyboardInterrupt:
        console.print("")
        return True
    return False


@contextmanager
def _kept_if_an_agent_fails(console, table, record_path, seats):
    """Yields the list of sentences not yet shown (starting with the lead's). An agent that fails
    mid-game ends the game, but not what was played: the position, what happened since the last
    screen and the score sheet so far are shown and the game so far recorded (``record_path``)
    before the failure goes on up, even when the record cannot be written."""
    happened = [lead_sentence(table.game, table.names)]
    try:
        yield happened
    except AgentError:
        _finish(console, table, happened, "An agent failed (the error follows); here is the score sheet so far.")
        try:
            _write_record(record_path, table, seats)
        except OSError as exc:  # the agent's failure is the error to report; this one is said here
            console.print(f"The game could not be recorded to {record_path}: {exc.strerror or exc}")
        raise


def _ask_person(console, table, happened, stdin, echo):
    """Show the person's screen (what happened since their last move) and ask their move."""
    game, seat = table.game, table.viewer
    moves = list(game.legal_actions())
    pending = table.pending_sentence()
    console.rule(style="dim")
    shown = happened + ([pending] if pending else [])
    print_lines(console, build_screen(game, table.names, seat, shown, moves, width=console.width))
    happened.clear()
    return ask_move(moves, stdin, console, echo, hand=mask_to_tiles(game.hands[seat]))


def _hand_end_pause(console, table, happened, stdin, echo):
    """The ended hand's final position and scoring; ``False`` if the person quits instead of going on."""
    game = table.game
    console.rule(style="dim")
    print_lines(console, build_screen(game, table.names, table.viewer, happened, (), title=_over_title(game),
                                      width=console.width))
    happened.clear()
    return wait_for_enter(stdin, console, f"Press Enter to deal hand {game.hand_number + 2} (q to quit): ", echo)


def _over_title(game):
    return f"All Fives - hand {game.hand_number + 1} is over"


def _screen_title(game):
    """A watched screen's title: the default, or the hand's or the game's end."""
    if game.game_over:
        return "All Fives - final position"
    return _over_title(game) if game.hand_over else None


def watch_session(config, agents, names, seed, console, delay=0.0, record_path=None, seat_specs=None,
                  frame_sink=None, sleep=time.sleep):
    """Agents play a whole game; a screen after every turn, ``delay`` seconds
    apart. A hand's end shows its final position and scoring and stays
    :data:`HAND_END_PAUSE` times longer. ``frame_sink(game)`` (optional) is
    called after every step, e.g. to collect images. Ctrl-C stops the game
    with the score sheet so far; an agent that fails mid-game raises
    :class:`~allfives_env.arena.game.AgentError` after it is printed and the
    game so far is recorded."""
    table = Table(config, agents, names, seed)
    seats = seat_specs or names
    with _kept_if_an_agent_fails(console, table, record_path, seats) as happened:
        _watch_until_over(table, console, delay, frame_sink, sleep, happened)
    _finish(console, table, [], None, show_position=not table.game.game_over)
    _write_record(record_path, table, seats)
    return 0


def _watch_until_over(table, console, delay, frame_sink, sleep, happened):
    """Step the agents until the game ends or Ctrl-C, a screen after every turn; ``happened`` (a list,
    kept up to date in place) holds the sentences not yet shown."""
    game, names = table.game, table.names
    if frame_sink:
        frame_sink(game)
    try:
        while not game.game_over:
            if game.hand_over:
                happened[:] = table.next_hand()
                if frame_sink:
                    frame_sink(game)
                continue
            sentences = table.step(table.agent_action())
            if frame_sink:
                frame_sink(game)
            if not sentences:
                continue  # a draw inside a turn: shown with the turn
            happened += sentences
            title = _screen_title(game)
            pause = delay * (HAND_END_PAUSE if game.hand_over and not game.game_over else 1)
            _show(console, build_screen(game, names, None, happened, (), title=title, width=console.width),
                  pause, sleep)
            happened.clear()
    except KeyboardInterrupt:
        console.print("")


def _finish(console, table, happened, why_stopped=None, show_position=True):
    """The final (or stopped) position with what ``happened`` since the last screen, ``why_stopped`` (a
    sentence, said when the game is not over) and the score sheet."""
    game, names = table.game, table.names
    console.rule(style="dim")
    if show_position:
        title = "All Fives - final position" if game.game_over else "All Fives - game stopped"
        print_lines(console, build_screen(game, names, table.viewer, happened, (), title=title, width=console.width))
    if why_stopped and not game.game_over:
        console.print(why_stopped)
    unfinished = None if game.game_over else game
    print_lines(console, table.sheet.lines(game, names, unfinished=unfinished, width=console.width))


def _write_record(path, table, seats):
    if path:  # added to the file: a session never replaces games recorded before (checked by the CLI)
        write_records(path, [table.record(seats)], append=True)


def _show(console, lines, delay, sleep):
    if console.is_terminal and delay > 0:
        console.clear()
    else:
        console.rule(style="dim")
    print_lines(console, lines)
    if delay > 0:
        sleep(delay)
