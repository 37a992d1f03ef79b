"""Play, watch and replay All Fives in the terminal.

Three pieces, each usable alone:

* the **narrator** (:func:`narrate_turn`, :func:`narrate_hand_end`) turns the
  engine's events into sentences ("player_1 drew 2 tiles and played [3|5] on
  N: count 15, scores 15");
* the **screen builder** (:func:`build_screen`) returns the picture of a
  position as a list of :class:`rich.text.Text` lines: the layout as a cross
  around the spinner, the open ends and the count, hand sizes and the
  boneyard, the scores, what just happened, the viewer's hand and the
  numbered legal moves with what each would score;
* the **input loop** (:func:`ask_move`, :func:`parse_choice`) reads one
  choice from any text stream, explains bad input in one line and asks again.

:class:`Table` runs a game on the engine (:class:`~allfives_env.rules.game.Game`)
with one controller per seat (an agent from
:func:`~allfives_env.agents.base.make_agent`, or ``None`` for the person at
the keyboard), keeps the score sheet and writes an arena-style record that
``allfives replay`` reads. :func:`play_session`, :func:`watch_session` and
:func:`replay_session` are the three commands. Output goes through a
:class:`rich.console.Console`: colours on a terminal, plain text otherwise.
"""

import json
import time

import numpy as np
from rich.console import Console
from rich.text import Text

from ..env.render.text import SLOT_NAMES, layout_cross
from ..rules.actions import DRAW, PASS
from ..rules.game import Game
from ..rules.tiles import mask_to_tiles, tile_name
from ..rules.view import player_view

__all__ = [
    "Table", "ScoreSheet", "narrate_turn", "narrate_hand_end", "build_screen", "describe_move",
    "parse_choice", "ask_move", "play_session", "watch_session", "replay_session", "load_record",
    "make_console",
]

QUIT = "quit"
STYLES = {
    "tile": "bold", "spinner": "bold yellow", "end": "cyan", "dim": "dim", "you": "bold green",
    "score": "bold green", "title": "bold magenta", "error": "bold red",
}


def make_console(file=None, color=None, width=None):
    """A rich Console on ``file`` (default stdout): colours when it is a terminal
    (``color=False`` turns them off, ``True`` forces them)."""
    if color is False:
        return Console(file=file, color_system=None, no_color=True, highlight=False, width=width or 200)
    return Console(file=file, force_terminal=True if color else None, highlight=False,
                   width=width or (None if file is None else 200))


# ------------------------------------------------------------------ narrator
def _count_text(count, points):
    return f"count {count}, scores {_num(points)}" if points else f"count {count}"


def _num(x):
    return str(int(x)) if x == int(x) else str(x)


def _drawn_text(drawn, reveal):
    if not drawn:
        return ""
    if reveal and all(t >= 0 for t in drawn):
        return "drew " + ", ".join(tile_name(t) for t in drawn)
    return f"drew {len(drawn)} tile" + ("s" if len(drawn) != 1 else "")


def narrate_turn(turn, names, reveal=True, lead=False):
    """One sentence for one seat's turn: ``turn`` is its consecutive events
    ``(seat, action, tile, points, count)`` (draws, then a play or a pass, or
    draws only while the turn goes on). ``reveal``: show the drawn tiles;
    ``lead``: the turn is the hand's lead."""
    seat = turn[0][0]
    drawn = [tile for _, action, tile, _, _ in turn if action == DRAW]
    parts = [_drawn_text(drawn, reveal)] if drawn else []
    _, action, tile, points, count = turn[-1]
    if action == PASS:
        parts.append("passed (nothing fits, the boneyard is empty)")
    elif action < DRAW:
        if lead:
            parts.append(f"led {tile_name(tile)}: {_count_text(count, points)}")
        else:
            parts.append(f"played {tile_name(tile)} on {SLOT_NAMES[action & 3]}: {_count_text(count, points)}")
    return f"{names[seat]} " + " and ".join(parts)


def split_turns(events):
    """Group a hand's events into turns: lists of consecutive events of one seat
    ending with a play or a pass (the last turn may be draws only, while it goes on)."""
    turns, current = [], []
    for event in events:
        current.append(event)
        if event[1] != DRAW:
            turns.append(current)
            current = []
    if current:
        turns.append(current)
    return turns


def last_turn_sentence(events, names, viewer=None):
    """:func:`narrate_turn` for the hand's latest turn; another seat's drawn tiles
    are hidden from ``viewer`` (``None``: a spectator sees everything)."""
    turns = split_turns(events)
    turn = turns[-1]
    return narrate_turn(turn, names, reveal=viewer is None or turn[0][0] == viewer, lead=len(turns) == 1)


def narrate_hand_end(game, names):
    """Sentences for the end of a hand (and of the game, if it ended)."""
    result = game.hand_result
    lines = []
    if result is not None:
        pips = ", ".join(f"{names[s]} {p}" for s, p in enumerate(result.seat_pips))
        if result.kind == "domino":
            who = names[game.events[-1][0]] if game.events else "?"
            head = f"Hand {game.hand_number + 1} over: {who} played their last tile (domino)."
        else:
            head = f"Hand {game.hand_number + 1} blocked: nobody can play and the boneyard is empty."
        lines.append(f"{head} Pips left: {pips}.")
        gains = [f"{side_label(game, side, names)} {'+' if p > 0 else ''}{_num(p)}"
                 for side, p in enumerate(result.points) if p]
        lines.append("Hand-end points: " + (", ".join(gains) if gains else "none (a tie)") + ".")
    if game.game_over:
        lines.append(winner_sentence(game, names))
    return lines


def winner_sentence(game, names):
    scores = "-".join(_num(s) for s in game.scores)
    if len(game.winners) > 1:
        return f"Game over: drawn between {' and '.join(side_label(game, s, names) for s in game.winners)} ({scores})."
    return f"Game over: {side_label(game, game.winners[0], names)} win{'s' if _single(game, game.winners[0]) else ''} ({scores})."


def _single(game, side):
    return sum(1 for s in range(game.num_players) if game.seat_side[s] == side) == 1


def _lead_sentence(game, names):
    return f"Hand {game.hand_number + 1} is dealt; the lead is {names[game.leader]}'s."


def side_label(game, side, names):
    return " & ".join(names[s] for s in range(game.num_players) if game.seat_side[s] == side)


# ------------------------------------------------------------------ score sheet
class ScoreSheet:
    """Points per side hand by hand, with running totals."""

    def __init__(self, num_sides):
        self.num_sides = num_sides
        self.rows = []  # (hand number, how it ended, gains per side, totals per side)

    def close_hand(self, game):
        gains = [game.scores[s] - game.hand_start_scores[s] for s in range(self.num_sides)]
        how = game.hand_result.kind if game.hand_result is not None else "target reached"
        self.rows.append((game.hand_number + 1, how, gains, list(game.scores)))

    def lines(self, game, names, unfinished=None):
        """The sheet as text lines; ``unfinished`` (a game) adds its hand in progress."""
        rows = list(self.rows)
        if unfinished is not None and not unfinished.hand_over:
            gains = [unfinished.scores[s] - unfinished.hand_start_scores[s] for s in range(self.num_sides)]
            rows.append((unfinished.hand_number + 1, "in progress", gains, list(unfinished.scores)))
        heads = [side_label(game, s, names) for s in range(self.num_sides)]
        table = [["hand", "ended by", *heads]]
        for number, how, gains, totals in rows:
            table.append([str(number), how, *[f"{_num(t)} ({'+' if g >= 0 else ''}{_num(g)})"
                                              for g, t in zip(gains, totals)]])
        widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
        out = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in table]
        out.insert(1, "  ".join("-" * w for w in widths))
        return [f"Score sheet (target {game.target:g}; each cell: total (points that hand))", *out]


# ------------------------------------------------------------------ screen
def describe_move(game, action):
    """What a legal action does and would score, e.g. ``"[3|5] on E -> count 15, scores 15"``."""
    if action == DRAW:
        return f"draw from the boneyard (no tile fits; {game.boneyard_left} left)"
    if action == PASS:
        return "pass (no tile fits and the boneyard is empty)"
    tile, slot = action >> 2, action & 3
    count = game.count_after(tile, slot)
    points = count if count > 0 and count % game.divisor == 0 else 0
    last = " - your last tile (domino)" if game.lead_tile >= 0 and game.hand_size(game.to_move) == 1 else ""
    if game.lead_tile < 0:
        return f"lead {tile_name(tile)} -> {_count_text(count, points)}"
    return f"{tile_name(tile)} on {SLOT_NAMES[slot]} (the {game.open_value[slot]} end) -> {_count_text(count, points)}{last}"


def _styled(segments):
    text = Text()
    for chunk, style in segments:
        text.append(chunk, style=STYLES.get(style, style) or None)
    return text


def build_screen(game, names, viewer=None, happened=(), moves=(), title=None):
    """The position as :class:`rich.text.Text` lines.

    ``viewer``: the seat whose hand is shown (``None``: every hand, for
    spectators); ``happened``: sentences to show under "What happened";
    ``moves``: legal actions to list, numbered from 1."""
    lines = [Text(title or f"All Fives - hand {game.hand_number + 1}", style=STYLES["title"])]
    lines.append(_styled([("Scores: ", "")] + _score_segments(game, names)))
    lines.append(Text(""))
    lines += [_styled(line) for line in layout_cross(game)]
    lines.append(Text(""))
    lines.append(_styled(_ends_segments(game)))
    sizes = ", ".join(f"{names[s]} {game.hand_size(s)}" for s in range(game.num_players))
    turn = "" if game.hand_over else f" | to move: {names[game.to_move]}"
    lines.append(Text(f"Tiles in hand: {sizes} | boneyard {game.boneyard_left}{turn}"))
    if happened:
        lines.append(Text("What happened:"))
        lines += [Text(f"  {sentence}") for sentence in happened]
    seats = range(game.num_players) if viewer is None else (viewer,)
    for seat in seats:
        label = "Your hand" if seat == viewer else f"{names[seat]} holds"
        tiles = mask_to_tiles(game.hands[seat])
        text = _styled([(f"{label}: ", "you" if seat == viewer else "")])
        for i, tile in enumerate(tiles):
            style = "spinner" if tile == game.must_play and seat == game.to_move else "tile"
            text.append_text(_styled([(" " if i else "", ""), (tile_name(tile), style)]))
        lines.append(text)
    if moves:
        lines.append(Text("Your moves:"))
        for i, action in enumerate(moves, 1):
            desc = describe_move(game, action)
            lines.append(_styled([(f"  {i:>2}. ", ""), (desc, "score" if "scores" in desc else "")]))
    return lines


def _score_segments(game, names):
    segments = []
    for side in range(game.num_sides):
        if side:
            segments.append((" | ", ""))
        segments += [(f"{side_label(game, side, names)} ", ""), (_num(game.scores[side]), "score")]
    segments.append((f" (target {game.target:g})", "dim"))
    return segments


def _ends_segments(game):
    ends = [f"{SLOT_NAMES[s]}={game.open_value[s]}" + ("x2" if game.weight[s] == 2 else "")
            + (" (counts 0)" if game.weight[s] == 0 else "") for s in range(4) if game.open_value[s] >= 0]
    count = game.count
    scoring = count > 0 and count % game.divisor == 0
    return [("Open ends: ", ""), (", ".join(ends) or "none", "end"), ("  Count: ", ""),
            (str(count), "score" if scoring else "tile")]


def print_lines(console, lines):
    for line in lines:
        console.print(line, soft_wrap=True)


# ------------------------------------------------------------------ input
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


def prompt_text(game, moves):
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


def ask_move(game, moves, stream, console, echo=False):
    """Ask until a valid answer: returns an action or :data:`QUIT` (also at end of file)."""
    while True:
        line = read_line(stream, console, prompt_text(game, moves), echo)
        if line is None:
            return QUIT
        choice = parse_choice(line, moves)
        if isinstance(choice, str) and choice.startswith("!"):
            console.print(Text(choice[2:], style=STYLES["error"]), soft_wrap=True)
            continue
        return choice


# ------------------------------------------------------------------ table
class Table:
    """A game on the engine with one controller per seat and a score sheet.

    ``agents[seat]`` is an agent object, or ``None`` for a person. Deals and
    leader draws come from ``np.random.default_rng(seed)``; the agent at
    ``seat`` gets a generator seeded by ``(seed, 1_000_003, seat)`` (as in the
    arena), so a seed reproduces the whole game. ``deal`` (keyword arguments
    of :meth:`Game.start_game`: ``hands``, ``boneyard``, ``leader``, ``scores``)
    fixes the first hand. ``viewer``: the seat whose point of view the
    narration takes (other seats' drawn tiles hidden), ``None`` for spectators."""

    def __init__(self, config, agents, names, seed=0, deal=None, viewer=None):
        self.config = config
        self.viewer = viewer
        self.agents = list(agents)
        self.names = list(names)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        for seat, agent in enumerate(self.agents):
            if agent is not None:
                agent.reset(seat, config, np.random.default_rng(np.random.SeedSequence([seed, 1_000_003, seat])))
        self.game = Game(config)
        self.game.start_game(self.rng, **(deal or {}))
        self.sheet = ScoreSheet(config.num_sides)
        self.record_hands = []
        self._record_hand_start()

    def _record_hand_start(self):
        game = self.game
        self.record_hands.append({"hands": [mask_to_tiles(h) for h in game.hands],
                                  "boneyard": list(game.boneyard), "leader": game.leader, "actions": []})

    def agent_action(self, seat):
        legal = self.game.legal_actions()
        if len(legal) == 1:
            return legal[0]
        view = player_view(self.game, seat)
        action = self.agents[seat].act(view, view.legal_actions)
        if action not in legal:
            raise ValueError(f"agent at seat {seat} chose an illegal action {action!r}")
        return int(action)

    def step(self, action):
        """Apply ``action``; returns the sentences it completes (a finished turn,
        the hand's end)."""
        game = self.game
        game.step(action)
        self.record_hands[-1]["actions"].append(int(action))
        out = []
        last = game.events[-1] if game.events else None
        if last is not None and (last[1] != DRAW or game.hand_over):
            out.append(last_turn_sentence(game.events, self.names, self.viewer))
        if game.hand_over:
            self.sheet.close_hand(game)
            self.record_hands[-1]["scores_after"] = list(game.scores)
            out += narrate_hand_end(game, self.names)
        return out

    def pending_sentence(self):
        """The turn in progress (draws so far), if any."""
        events = self.game.events
        if events and events[-1][1] == DRAW and not self.game.hand_over:
            return last_turn_sentence(events, self.names, self.viewer)
        return None

    def next_hand(self):
        self.game.start_next_hand(self.rng)
        self._record_hand_start()
        return [_lead_sentence(self.game, self.names)]

    def record(self, seats):
        game = self.game
        rec = {"config": self.config.to_dict(), "deal_seed": [self.seed], "hands": self.record_hands,
               "scores": list(game.scores), "winners": list(game.winners), "seats": list(seats)}
        if not game.game_over:
            rec["unfinished"] = True
        return rec


# ------------------------------------------------------------------ play
def play_session(config, human_seat, agents, names, seed, stdin, console, deal=None, echo=False,
                 record_path=None, seat_specs=None):
    """A person at ``human_seat`` against ``agents`` (one per seat, ``None`` at
    the person's seat). Reads moves from ``stdin``. Returns 0 when the game
    ends or the person stops it (``q``, end of file or Ctrl-C): the score
    sheet is printed either way."""
    table = Table(config, agents, names, seed, deal, viewer=human_seat)
    game = table.game
    happened = [_lead_sentence(game, names)]
    quit_early = False
    try:
        while not game.game_over:
            if game.hand_over:
                happened += table.next_hand()
                continue
            seat = game.to_move
            if seat != human_seat:
                happened += table.step(table.agent_action(seat))
                continue
            moves = list(game.legal_actions())
            pending = table.pending_sentence()
            console.rule(style="dim")
            print_lines(console, build_screen(game, names, human_seat, happened + ([pending] if pending else []), moves))
            happened = []
            action = ask_move(game, moves, stdin, console, echo)
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
        with open(path, "w") as f:
            f.write(json.dumps(table.record(seats)) + "\n")


# ------------------------------------------------------------------ watch
def watch_session(config, agents, names, seed, console, delay=0.0, record_path=None, seat_specs=None,
                  frame_sink=None, sleep=time.sleep):
    """Agents play a whole game; a screen after every turn. ``frame_sink(game)``
    (optional) is called after every step, e.g. to collect images."""
    table = Table(config, agents, names, seed)
    game = table.game
    happened = [_lead_sentence(game, names)]
    if frame_sink:
        frame_sink(game)
    try:
        while not game.game_over:
            if game.hand_over:
                happened = table.next_hand()
                if frame_sink:
                    frame_sink(game)
                continue
            sentences = table.step(table.agent_action(game.to_move))
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


def _show(console, lines, delay, sleep):
    if console.is_terminal and delay > 0:
        console.clear()
    else:
        console.rule(style="dim")
    print_lines(console, lines)
    if delay > 0:
        sleep(delay)


# ------------------------------------------------------------------ replay
def load_record(path, game_index=0):
    """The ``game_index``-th (0-based) game record of an arena JSONL file."""
    with open(path) as f:
        lines = [line for line in f if line.strip()]
    if not lines:
        raise ValueError(f"{path} holds no game records")
    if not 0 <= game_index < len(lines):
        raise ValueError(f"--game {game_index + 1} is out of range; {path} holds games 1..{len(lines)}")
    try:
        return json.loads(lines[game_index])
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: game {game_index + 1} is not valid JSON ({exc})") from None


def replay_positions(record):
    """Replay a record with the engine, checking it. Returns ``(positions,
    problems, names)``: the positions as ``(hand index, game copy, sentences)``
    (the first position of each hand is its deal), the problems found (empty
    when every recorded action is legal and the game replays to every recorded
    score) and the seat names."""
    from ..arena.match import _start_hand
    from ..rules.config import RulesConfig

    config = RulesConfig.from_options(**record["config"])
    names = _record_names(record, config)
    game = Game(config)
    positions, problems = [], []
    for k, hand in enumerate(record["hands"]):
        order = [t for h in hand["hands"] for t in h] + list(hand["boneyard"])
        _start_hand(game, config, order, hand["leader"], first=(k == 0))
        positions.append((k, game.clone(), [_lead_sentence(game, names)]))
        for action in hand["actions"]:
            if action not in game.legal_actions():
                problems.append(f"hand {k + 1}: recorded action {action} is not legal")
                return positions, problems, names
            game.step(action)
            sentence = last_turn_sentence(game.events, names)
            sentences = [sentence if action != DRAW or game.hand_over else sentence + " (the turn goes on)"]
            if game.hand_over:
                sentences += narrate_hand_end(game, names)
            positions.append((k, game.clone(), sentences))
        want = hand.get("scores_after")
        if want is not None and [float(x) for x in want] != game.scores:
            problems.append(f"hand {k + 1} replays to scores {game.scores} but the record says {want}")
    if [float(x) for x in record["scores"]] != game.scores:
        problems.append(f"the game replays to scores {game.scores} but the record says {record['scores']}")
    return positions, problems, names


def _record_names(record, config):
    seats = record.get("seats")
    if seats and len(seats) == config.num_players:
        return [f"player_{i} ({spec})" for i, spec in enumerate(seats)]
    return [f"player_{i}" for i in range(config.num_players)]


REPLAY_HELP = "Enter or n: next step | b: back | h K: jump to hand K | e: end | q: quit"


def replay_session(record, stdin, console, echo=False):
    """Step through a recorded game. Returns 0, or 1 if the record does not
    replay to its recorded scores."""
    positions, problems, names = replay_positions(record)
    final = positions[-1][1]
    if problems:
        for problem in problems:
            console.print(Text(f"Record check failed: {problem}", style=STYLES["error"]), soft_wrap=True)
        return 1
    scores = "-".join(_num(s) for s in final.scores)
    console.print(f"Record check: {len(record['hands'])} hands replay to the recorded scores "
                  f"hand by hand and to the final {scores}.", soft_wrap=True)
    hand_starts = [i for i, (k, _, _) in enumerate(positions) if i == 0 or positions[i - 1][0] != k]
    index = 0
    while True:
        hand, game, sentences = positions[index]
        console.rule(style="dim")
        title = (f"Replay - hand {hand + 1}/{len(hand_starts)}, step {index - hand_starts[hand]}"
                 f" (position {index + 1}/{len(positions)})")
        print_lines(console, build_screen(game, names, None, sentences, (), title=title))
        console.print(Text(REPLAY_HELP, style=STYLES["dim"]), soft_wrap=True)
        while True:
            line = read_line(stdin, console, "replay> ", echo)
            if line is None:
                return 0
            target = _replay_command(line, index, len(positions), hand_starts)
            if target == QUIT:
                return 0
            if isinstance(target, str):
                console.print(Text(target, style=STYLES["error"]), soft_wrap=True)
                continue
            index = target
            break


def _replay_command(line, index, total, hand_starts):
    """The position a replay command leads to, :data:`QUIT`, or an error sentence."""
    words = line.strip().lower().split()
    if not words or words[0] in ("n", "next"):
        return min(index + 1, total - 1) if index < total - 1 else "Already at the end: b to go back, q to quit."
    cmd = words[0]
    if cmd in ("q", "quit"):
        return QUIT
    if cmd in ("b", "back"):
        return index - 1 if index > 0 else "Already at the start: Enter to go forward, q to quit."
    if cmd in ("e", "end"):
        return total - 1
    if cmd in ("h", "hand"):
        if len(words) == 2 and words[1].isdigit() and 1 <= int(words[1]) <= len(hand_starts):
            return hand_starts[int(words[1]) - 1]
        return f"Give a hand number from 1 to {len(hand_starts)}, e.g. 'h 2'."
    return f"{line.strip()!r} is not a replay command; {REPLAY_HELP}."


# ------------------------------------------------------------------ seats
def play_seat_specs(num_players, seat, agents, partner=None):
    """Specs per seat for ``allfives play`` (``None`` at the person's seat).

    ``agents`` are the opponents: one spec for all of them, or one per
    opponent seat in seat order. With 4 players the person's partner (the
    seat opposite) is ``partner`` (default: the first opponent spec)."""
    if seat not in range(num_players):
        raise ValueError(f"--seat {seat} is not a seat; allowed 0..{num_players - 1}")
    if num_players != 4 and partner is not None:
        raise ValueError("--partner is only for 4 players (two partnerships)")
    partner_seat = (seat + 2) % 4 if num_players == 4 else None
    opponents = [s for s in range(num_players) if s != seat and s != partner_seat]
    agents = list(agents)
    if len(agents) == 1:
        agents = agents * len(opponents)
    if len(agents) != len(opponents):
        raise ValueError(f"{len(agents)} agent specs for {len(opponents)} opponents; give one spec for all "
                         f"of them or one per opponent seat ({', '.join(map(str, opponents))})")
    specs = [None] * num_players
    for s, spec in zip(opponents, agents):
        specs[s] = spec
    if partner_seat is not None:
        specs[partner_seat] = partner or agents[0]
    return specs


def watch_seat_specs(num_players, agents):
    """Specs per seat for ``allfives watch``: one per side (as in ``allfives eval``;
    with 4 players each partnership's spec plays both its seats), or one per seat."""
    agents = list(agents)
    sides = 2 if num_players == 4 else num_players
    if len(agents) == 1:
        agents = agents * sides
    if len(agents) == num_players:
        return agents
    if len(agents) == sides:
        return [agents[seat % 2] for seat in range(4)]
    raise ValueError(f"{len(agents)} agent specs for {num_players} players; give one per side ({sides})"
                     + (" or one per seat (4)" if num_players == 4 else ""))
