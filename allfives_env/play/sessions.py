"""``allfives play`` and ``allfives watch``: a person against agents, or agents among themselves."""

import time

from ..rules.record import write_records
from .narrate import lead_sentence
from .prompt import QUIT, ask_move
from .screen import build_screen, print_lines
from .table import Table


def play_session(config, human_seat, agents, names, seed, stdin, console, deal=None, echo=False,
                 record_path=None, seat_specs=None):
    """A person at ``human_seat`` against ``agents`` (one per seat, ``None`` at
    the person's seat). Reads moves from ``stdin``. Returns 0 when the game
    ends or the person stops it (``q``, end of file or Ctrl-C): the score
    sheet is printed either way."""
    table = Table(config, agents, names, seed, deal, viewer=human_seat)
    game = table.game
    happened = [lead_sentence(game, names)]
    quit_early = False
    try:
        while not game.game_over:
            if game.hand_over:
                happened += table.next_hand()
                continue
            if game.to_move != human_seat:
                happened += table.step(table.agent_action())
                continue
            moves = list(game.legal_actions())
            pending = table.pending_sentence()
            console.rule(style="dim")
            shown = happened + ([pending] if pending else [])
            print_lines(console, build_screen(game, names, human_seat, shown, moves))
            happened = []
            action = ask_move(moves, stdin, console, echo)
            if action == QUIT:
                quit_early = True
                break
            happened += table.step(action)
    except KeyboardInterrupt:
        quit_early = True
        console.print("")
    _finish(console, table, names, happened, human_seat, quit_early)
    _write_record(record_path, table, seat_specs or names)
    return 0


def watch_session(config, agents, names, seed, console, delay=0.0, record_path=None, seat_specs=None,
                  frame_sink=None, sleep=time.sleep):
    """Agents play a whole game; a screen after every turn. ``frame_sink(game)``
    (optional) is called after every step, e.g. to collect images."""
    table = Table(config, agents, names, seed)
    game = table.game
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
            _show(console, build_screen(game, names, None, happened, ()), delay, sleep)
            happened = []
    except KeyboardInterrupt:
        console.print("")
    _finish(console, table, names, [], None, False, show_position=not game.game_over)
    _write_record(record_path, table, seat_specs or names)
    return 0


def _finish(console, table, names, happened, viewer, quit_early, show_position=True):
    game = table.game
    console.rule(style="dim")
    if show_position:
        title = "All Fives - final position" if game.game_over else "All Fives - game stopped"
        print_lines(console, build_screen(game, names, viewer, happened, (), title=title))
    if quit_early and not game.game_over:
        console.print("You left the game; here is the score sheet so far.")
    print_lines(console, table.sheet.lines(game, names, unfinished=None if game.game_over else game))


def _write_record(path, table, seats):
    if path:
        write_records(path, [table.record(seats)])


def _show(console, lines, delay, sleep):
    if console.is_terminal and delay > 0:
        console.clear()
    else:
        console.rule(style="dim")
    print_lines(console, lines)
    if delay > 0:
        sleep(delay)
