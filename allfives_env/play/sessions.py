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
    score sheet so far is printed and the game so far is recorded."""
    table = Table(config, agents, names, seed, deal, viewer=human_seat)
    seats = seat_specs or names
    with _kept_if_an_agent_fails(console, table, names, human_seat, record_path, seats):
        quit_early, happened = _play_until_over(table, human_seat, stdin, console, echo)
    _finish(console, table, names, happened, human_seat, quit_early)
    _write_record(record_path, table, seats)
    return 0


def _play_until_over(table, human_seat, stdin, console, echo):
    """The person's game until it ends or they stop it; returns (stopped early, what happened since the
    last screen)."""
    game = table.game
    happened = [lead_sentence(game, table.names)]
    try:
        while not game.game_over:
            if game.hand_over:
                if not _hand_end_pause(console, table, happened, stdin, echo):
                    return True, []
                happened = table.next_hand()
            elif game.to_move != human_seat:
                happened += table.step(table.agent_action())
            else:
                action = _ask_person(console, table, happened, stdin, echo)
                if action == QUIT:
                    return True, []
                happened = table.step(action)
    except KeyboardInterrupt:
        console.print("")
        return True, happened
    return False, happened


@contextmanager
def _kept_if_an_agent_fails(console, table, names, viewer, record_path, seats):
    """An agent that fails mid-game ends the game, but not what was played: the score sheet so far is
    shown and the game so far recorded (``record_path``) before the failure goes on up."""
    try:
        yield
    except AgentError:
        _finish(console, table, names, [], viewer, agent_failed=True)
        _write_record(record_path, table, seats)
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
    called after every step, e.g. to collect images."""
    table = Table(config, agents, names, seed)
    with _kept_if_an_agent_fails(console, table, names, None, record_path, seat_specs or names):
        _watch_until_over(table, console, delay, frame_sink, sleep)
    _finish(console, table, names, [], None, show_position=not table.game.game_over)
    _write_record(record_path, table, seat_specs or names)
    return 0


def _watch_until_over(table, console, delay, frame_sink, sleep):
    """Step the agents until the game ends or Ctrl-C, a screen after every turn."""
    game, names = table.game, table.names
    happened = [lead_sentence(game, names)]
    if frame_sink:
        frame_sink(game)
    try:
        while not game.game_over:
            if game.hand_over:
                happened = table.next_hand()
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
            happened = []
    except KeyboardInterrupt:
        console.print("")


def _finish(console, table, names, happened, viewer, quit_early=False, show_position=True, agent_failed=False):
    game = table.game
    console.rule(style="dim")
    if show_position:
        title = "All Fives - final position" if game.game_over else "All Fives - game stopped"
        print_lines(console, build_screen(game, names, viewer, happened, (), title=title, width=console.width))
    if quit_early and not game.game_over:
        console.print("You left the game; here is the score sheet so far.")
    if agent_failed:
        console.print("An agent failed (the error is below); here is the score sheet so far.")
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
