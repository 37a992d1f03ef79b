"""Play, watch and replay All Fives in the terminal.

Modules, one job each, usable alone: :mod:`.narrate` (events as sentences),
:mod:`.screen` (a position as rich Text lines; the console), :mod:`.wrap`
(fitting lines to the console's width, never splitting a tile), :mod:`.prompt`
(reading a move from any text stream), :mod:`.table` (a game with one
controller per seat, its score sheet and record), :mod:`.seats` (who sits
where), :mod:`.sessions` (``allfives play`` and ``allfives watch``) and
:mod:`.replay` (``allfives replay``). Records are the one format of
:mod:`allfives_env.rules.record`, the arena's included.
"""

from .narrate import narrate_hand_end, narrate_turn
from .prompt import QUIT, ask_move, parse_choice
from .replay import load_record, replay_session
from .screen import build_screen, describe_move, make_console
from .seats import play_seat_specs, watch_seat_specs
from .sessions import play_session, watch_session
from .table import ScoreSheet, Table

__all__ = [
    "Table", "ScoreSheet", "narrate_turn", "narrate_hand_end", "build_screen", "describe_move",
    "parse_choice", "ask_move", "QUIT", "play_session", "watch_session", "replay_session", "load_record",
    "make_console", "play_seat_specs", "watch_seat_specs",
]
