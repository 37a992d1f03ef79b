"""A recorded game as the data of a replay page: every position, checked against the record first."""

from ...rules.record import parse_records
from ..replay import check_sentence, replay_positions
from ..table import ScoreSheet
from .views import position_view

#: the largest record upload the server reads (a few hundred games of ``eval --records``)
MAX_RECORD_BYTES = 5_000_000
#: the most positions a replay holds: a game to the highest target the rules take (10,000 points) has up to
#: about 11,700 (random players, 3 seats; greedy ones 5,100 to 7,300), at about 3 kB of page data each
MAX_REPLAY_POSITIONS = 20_000


class ReplayTooLong(ValueError):
    """A record that replays but has more positions than one page holds."""


def records_from_upload(data: bytes, name="the uploaded file") -> list:
    """The records of an uploaded JSONL file, parsed as data only (never a path, never code)."""
    if len(data) > MAX_RECORD_BYTES:
        raise ValueError(f"{name} is {len(data):,} bytes; the limit is {MAX_RECORD_BYTES:,} bytes (pick one game "
                         "from a big file with: allfives replay FILE --game K --html OUT.html)")
    records = parse_records(data.splitlines(), name)
    if not records:
        raise ValueError(f"{name} holds no game records (one JSON object per line, as eval --records writes)")
    return records


def pick_record(records, game_number, name="the file"):
    """The ``game_number``-th (from 1) of ``records``, or a ``ValueError`` giving the range."""
    if not 1 <= game_number <= len(records):
        raise ValueError(f"game {game_number} is out of range; {name} holds games 1..{len(records)}")
    return records[game_number - 1]


def replay_data(record, game_number=1, games_in_file=1) -> dict:
    """The replay page's data: every position of ``record`` (its deal, then after every step) as
    :func:`position_view` gives it to a spectator, the sentences that led to it, the score sheet
    as each hand closes, where each hand starts, and the record check's sentence. A record that
    does not replay (an illegal action, a score that does not match) is a ``ValueError``, and so is
    one of more than :data:`MAX_REPLAY_POSITIONS` positions. The score sheet comes once, as the
    rows of the hands that closed (``sheet``); each position shows the rows up to its hand."""
    steps = sum(len(hand.get("actions") or ()) + 1 for hand in record.get("hands") or ())
    if steps > MAX_REPLAY_POSITIONS:
        raise ReplayTooLong(f"the game has {steps:,} positions; a replay page holds at most "
                            f"{MAX_REPLAY_POSITIONS:,} (replay it in the terminal: allfives replay FILE)")
    positions, names = replay_positions(record)
    sheet = ScoreSheet(positions[0][1].num_sides)
    views, hand_starts = [], []
    for i, (hand, game, sentences) in enumerate(positions):
        if i == 0 or positions[i - 1][0] != hand:
            hand_starts.append(i)
        if game.hand_over:  # a hand's last position: the next one is a deal
            sheet.close_hand(game)
        views.append(position_view(game, names, None, sentences))
    final = positions[-1][1]
    return {"positions": views, "hand_starts": hand_starts, "names": names,
            "check": check_sentence(record, final, names),
            "sheet": [{"hand": number, "how": how, "gains": gains, "totals": totals}
                      for number, how, gains, totals in sheet.rows],
            "game": game_number, "games_in_file": games_in_file, "unfinished": not final.game_over}
