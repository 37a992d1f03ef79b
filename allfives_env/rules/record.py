"""The one game-record format: written while a game is played, read back as data, replayed.

A record is one JSON object per game, one per line of a JSONL file
(``allfives eval --records``, ``allfives play --record``, ``allfives watch --record``):

* ``config``: the rules, as :meth:`RulesConfig.to_dict` writes them;
* ``deal_seed``: the seed the deals were drawn from, a list of integers;
* ``hands``: one object per hand played: ``hands`` (each seat's tile ids as
  dealt), ``boneyard`` (tile ids in draw order), ``leader`` (the seat that
  led), ``actions`` (every step's action id, in order) and ``scores_after``
  (each side's score when the hand ended; absent for a hand left unfinished);
* ``scores``: each side's final score; ``winners``: the winning sides (empty
  for a game left unfinished); ``unfinished``: ``true`` when the game was
  stopped before its end (absent otherwise).

Writers may add keys of their own (the arena adds ``seats``, ``rotation`` and
``deal``; the terminal adds ``seats``). :class:`GameRecorder` is the one
writer, :func:`read_records` the one reader and :func:`replay` the one check.
"""

import json
import math
import os
from numbers import Real

from .actions import NUM_ACTIONS, action_name
from .config import RulesConfig, is_int
from .game import Game, validate_deal
from .tiles import mask_to_tiles

__all__ = ["GameRecorder", "record_line", "write_records", "read_records", "parse_records", "replay"]


# ------------------------------------------------------------------ writing
class GameRecorder:
    """Builds the record of one game while it is played.

    Call :meth:`hand_dealt` after every deal and :meth:`stepped` after every
    step of ``game``; :meth:`record` returns the record so far."""

    def __init__(self, game: Game):
        self.game = game
        self.hands = []

    def hand_dealt(self):
        game = self.game
        self.hands.append({
            "hands": [mask_to_tiles(hand) for hand in game.hands], "boneyard": list(game.boneyard),
            "leader": game.leader, "actions": [],
        })

    def stepped(self, action):
        hand = self.hands[-1]
        hand["actions"].append(int(action))
        if self.game.hand_over:
            hand["scores_after"] = list(self.game.scores)

    def record(self, deal_seed, **extra) -> dict:
        """The record: ``deal_seed`` (a list of integers) and the writer's own ``extra`` keys
        after the format's keys; ``unfinished`` is added while the game is not over."""
        game = self.game
        record = {
            "config": game.config.to_dict(), "deal_seed": list(deal_seed), "hands": self.hands,
            "scores": list(game.scores), "winners": list(game.winners), **extra,
        }
        if not game.game_over:
            record["unfinished"] = True
        return record


def record_line(record) -> str:
    """One record as its JSONL line (with the newline)."""
    return json.dumps(record) + "\n"


def write_records(path, records, append=False):
    """Write ``records`` to ``path`` as JSONL, one record a line (``append``: after the file's lines)."""
    newline_first = append and _ends_without_newline(path)
    with open(path, "a" if append else "w") as f:  # "a", not "a+": a pipe cannot seek
        if newline_first:  # a last line without its newline (edited by hand) is ended first
            f.write("\n")
        for record in records:
            f.write(record_line(record))


def _ends_without_newline(path) -> bool:
    """Whether ``path`` is a regular file whose last byte is not a newline (a pipe or a device: no)."""
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return False
    with open(path, "rb") as f:
        f.seek(-1, os.SEEK_END)
        return f.read(1) != b"\n"


# ------------------------------------------------------------------ reading
def read_records(path) -> list:
    """The records of a JSONL file, in file order (blank lines are skipped).

    A line that is not JSON, or not a record of the shape above, is a
    ``ValueError`` naming the file, the line and what is wrong."""
    with open(path, "rb") as f:
        return parse_records(f, path)


def parse_records(lines, source) -> list:
    """The records of ``lines`` (an iterable of ``bytes`` lines, e.g. an open binary file or
    ``data.splitlines()``), read as data only; errors name ``source`` and the line, as
    :func:`read_records` does."""
    records = []
    for number, raw in enumerate(lines, 1):
        try:
            line = raw.decode("utf-8-sig" if number == 1 else "utf-8")  # a first-line BOM (Windows editors)
        except UnicodeDecodeError:
            raise ValueError(f"{source}, line {number}: not text (a record file holds one JSON object per "
                             "line, UTF-8)") from None
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}, line {number}: not valid JSON ({exc.msg}, column {exc.colno})") from None
        except RecursionError:
            raise ValueError(f"{source}, line {number}: nested too deeply to be a game record") from None
        except ValueError:  # Python's integer-string limit: a number of thousands of digits
            raise ValueError(f"{source}, line {number}: holds a number too long to read (thousands of digits); "
                             "not a game record") from None
        problem = _shape_problem(record)
        if problem:
            raise ValueError(f"{source}, line {number}: {problem}")
        records.append(record)
    return records


def _is_count(value):
    return is_int(value) and value >= 0


def _is_score(value):
    """A finite number (a 400-digit integer or an infinity is not a score)."""
    if not isinstance(value, Real) or isinstance(value, bool):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _list_of(check):
    return lambda value: isinstance(value, list) and all(check(item) for item in value)


def _is_hand_list(value):
    return isinstance(value, list) and len(value) > 0 and all(isinstance(hand, dict) for hand in value)


# (key, check, what the check wants): the keys every record has ...
_RECORD_KEYS = (
    ("config", lambda value: isinstance(value, dict), "an object of rules options"),
    ("hands", _is_hand_list, "a non-empty list of hand objects"),
    ("scores", _list_of(_is_score), "a list of numbers, one per side"),
    ("winners", _list_of(_is_count), "a list of side numbers"),
)
# ... and every hand has
_HAND_KEYS = (
    ("hands", _list_of(_list_of(_is_count)), "a list of tile-id lists, one per seat"),
    ("boneyard", _list_of(_is_count), "a list of tile ids"),
    ("leader", _is_count, "a seat number"),
    ("actions", _list_of(_is_count), "a list of action ids"),
)
_OPTIONAL_HAND_KEYS = (("scores_after", _list_of(_is_score), "a list of numbers, one per side"),)
_OPTIONAL_RECORD_KEYS = (("seats", _list_of(lambda item: isinstance(item, str)), "a list of texts, one per seat"),)


def _shape_problem(record):
    """What is wrong with the shape of ``record`` (missing keys, wrong types), or ``None``."""
    if not isinstance(record, dict):
        return f"a game record is a JSON object, not {_shown(record)}"
    problem = _keys_problem(record, _RECORD_KEYS, "", _OPTIONAL_RECORD_KEYS)
    if problem:
        return problem
    for k, hand in enumerate(record["hands"]):
        problem = _keys_problem(hand, _HAND_KEYS, f"hand {k + 1}: ", _OPTIONAL_HAND_KEYS)
        if problem:
            return problem
    return None


def _keys_problem(obj, required, where, optional=()):
    for key, _, _ in required:
        if key not in obj:
            return f"{where}{key!r} is missing"
    for key, check, wanted in required + optional:
        if key in obj and not check(obj[key]):
            return f"{where}{key!r} is {_shown(obj[key])}; expected {wanted}"
    return None


def _shown(value, limit=40):
    text = json.dumps(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


# ------------------------------------------------------------------ replaying
def replay(record, on_position=None) -> Game:
    """Replay ``record`` with the engine, checking it; returns the final :class:`Game`.

    ``on_position(hand_index, game, action)``, if given, is called after every
    deal (``action`` None) and after every step, with the live game (clone it
    to keep it). A ``ValueError`` names the hand and step when the record is
    of the wrong shape, its rules or a deal are not valid, a hand's leader is
    not the one R19 names, a recorded action is not legal, or the game does not
    replay to a recorded score or to the recorded winners."""
    problem = _shape_problem(record)
    if problem:
        raise ValueError(problem)
    game = Game(_recorded_rules(record))
    seats = record.get("seats")
    if seats is not None and len(seats) != game.num_players:
        raise ValueError(f"'seats' names {len(seats)} seat(s) for a {game.num_players}-player game; expected one "
                         "text per seat")
    hands = record["hands"]
    for k, hand in enumerate(hands):
        _deal_recorded_hand(game, k, hand)
        if on_position:
            on_position(k, game, None)
        for i, action in enumerate(hand["actions"]):
            _check_legal(game, k, i, action)
            game.step(action)
            if on_position:
                on_position(k, game, action)
        _check_hand_end(game, k, hand, last=k == len(hands) - 1)
    _check_result(game, record)
    return game


def _recorded_rules(record):
    try:
        return RulesConfig.from_options(**record["config"])
    except ValueError as exc:
        raise ValueError(f"the record's rules are not valid: {exc}") from None


def _deal_recorded_hand(game, k, hand):
    try:
        if k == 0:
            game.start_game(None, hands=hand["hands"], boneyard=hand["boneyard"], leader=hand["leader"])
        else:
            # checked here as hands: the order alone cannot show a hand of the wrong size
            hands, boneyard = validate_deal(game.config, hand["hands"], hand["boneyard"], None)
            game.start_next_hand(None, deal=(hand["leader"], [t for h in hands for t in h] + boneyard))
    except ValueError as exc:
        raise ValueError(f"hand {k + 1}: {exc}") from None


def _check_legal(game, k, i, action):
    legal = game.legal_actions()
    if action not in legal:
        shown = action_name(action) if action < NUM_ACTIONS else str(action)
        raise ValueError(f"hand {k + 1}, step {i + 1}: the recorded action {shown} is not legal; "
                         f"legal: {[action_name(a) for a in legal] or 'none, the hand is over'}")


def _check_hand_end(game, k, hand, last):
    if not game.hand_over:
        if last:
            return  # a hand left unfinished; _check_result asks for the mark
        raise ValueError(f"hand {k + 1}: the recorded actions stop before the hand ends")
    if game.game_over and not last:
        raise ValueError(f"hand {k + 1} ends the game, but the record goes on with hand {k + 2}")
    want = hand.get("scores_after")
    if want is not None and [float(x) for x in want] != game.scores:
        raise ValueError(f"hand {k + 1} replays to scores {game.scores} but the record says {want}")


def _check_result(game, record):
    if [float(x) for x in record["scores"]] != game.scores:
        raise ValueError(f"the game replays to scores {game.scores} but the record says {record['scores']}")
    if record["winners"] != list(game.winners):
        raise ValueError(f"the game replays to winners {list(game.winners)} but the record says {record['winners']}")
    if not game.game_over and not record.get("unfinished"):
        raise ValueError(f"the record stops in hand {game.hand_number + 1}, before the game ends, "
                         "and is not marked unfinished")
