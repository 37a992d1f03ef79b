"""A game at the table: the engine with one controller per seat, the score sheet and the record."""

import numpy as np

from ..arena.game import AgentError, agent_rng, choose_action, is_builtin_agent, seat_agent
from ..arena.tables import grid_lines
from ..rules.actions import DRAW
from ..rules.game import Game
from ..rules.record import GameRecorder
from .narrate import format_points, last_turn_sentence, lead_sentence, narrate_hand_end, side_label


class ScoreSheet:
    """Points per side hand by hand, with running totals."""

    def __init__(self, num_sides):
        self.num_sides = num_sides
        self.rows = []  # (hand number, how it ended, gains per side, totals per side)

    def close_hand(self, game):
        how = game.hand_result.kind if game.hand_result is not None else "target reached"
        self.rows.append(self._row(game, how))

    def rows_so_far(self, game):
        """The closed hands' rows, then ``game``'s hand in progress (if any)."""
        if game.hand_over:
            return list(self.rows)
        return [*self.rows, self._row(game, "in progress")]

    def _row(self, game, how):
        gains = [game.scores[s] - game.hand_start_scores[s] for s in range(self.num_sides)]
        return (game.hand_number + 1, how, gains, list(game.scores))

    def lines(self, game, names, unfinished=None, width=None):
        """The sheet as text lines; ``unfinished`` (a game) adds its hand in
        progress. Wider than ``width``, the columns are headed A, B, ... with a
        legend; wider still, one line per hand."""
        rows = list(self.rows) if unfinished is None else self.rows_so_far(unfinished)
        head = f"Score sheet, target {game.target:g} (each cell: the total, then that hand's points)"
        sides = [side_label(game, s, names) for s in range(self.num_sides)]
        table = self._grid(rows, sides)
        if width is None or max(map(len, table)) <= width:
            return [head, *table]
        letters = [chr(ord("A") + s) for s in range(self.num_sides)]
        legend = "Sides: " + "; ".join(f"{letter} = {side}" for letter, side in zip(letters, sides))
        table = self._grid(rows, letters)
        if max(map(len, table)) > width:
            table = [f"hand {number}, {how}: " + ", ".join(f"{letter} {cell}" for letter, cell in zip(letters, cells))
                     for number, how, cells in self._cells(rows)]
        return [head, legend, *table]

    @staticmethod
    def _cells(rows):
        for number, how, gains, totals in rows:
            yield number, how, [f"{format_points(t)} ({'+' if g >= 0 else ''}{format_points(g)})"
                                for g, t in zip(gains, totals)]

    def _grid(self, rows, headings):
        table = [["hand", "ended by", *headings]]
        table += [[str(number), how, *cells] for number, how, cells in self._cells(rows)]
        return grid_lines(table)


class Table:
    """A game on the engine with one controller per seat and a score sheet.

    ``agents[seat]`` is an agent object, or ``None`` for a person. Deals and
    leader draws come from ``np.random.default_rng(seed)``; the agent at
    ``seat`` gets the arena's default generator for ``seed``
    (:func:`~allfives_env.arena.game.agent_rng`), so a seed reproduces the
    whole game. ``deal`` (keyword arguments of :meth:`Game.start_game`:
    ``hands``, ``boneyard``, ``leader``, ``scores``) fixes the first hand.
    ``viewer``: the seat whose point of view the narration takes (other seats'
    drawn tiles hidden), ``None`` for spectators. The game's record is kept in
    the one format of :mod:`allfives_env.rules.record`."""

    def __init__(self, config, agents, names, seed=0, deal=None, viewer=None):
        self.config = config
        self.viewer = viewer
        self.agents = list(agents)
        self.names = list(names)
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        for seat, agent in enumerate(self.agents):
            if agent is not None:
                try:
                    seat_agent(agent, seat, config, agent_rng(seed, seat))
                except AgentError as exc:  # before the game: as a spec that cannot play it
                    if is_builtin_agent(agent) and isinstance(exc.__cause__, ValueError):
                        raise exc.__cause__ from None  # a shipped agent's own words name it
                    raise ValueError(str(self._named(exc))) from exc.__cause__
        self.game = Game(config)
        self.game.start_game(self.rng, **(deal or {}))
        self.sheet = ScoreSheet(config.num_sides)
        self.recorder = GameRecorder(self.game)
        self.recorder.hand_dealt()

    def agent_action(self):
        """The action of the agent to move (the only legal one without asking it)."""
        try:
            action, _ = choose_action(self.game, self.agents[self.game.to_move])
        except AgentError as exc:
            raise self._named(exc) from exc.__cause__
        return action

    def _named(self, exc):
        """``exc`` naming its agent as the table shows it."""
        return AgentError(exc.seat, exc.detail, exc.place, f"agent {self.names[exc.seat]!r} (seat {exc.seat})")

    def step(self, action):
        """Apply ``action``; returns the sentences it completes (a finished turn,
        the hand's end)."""
        game = self.game
        game.step(action)
        self.recorder.stepped(action)
        out = []
        last = game.events[-1] if game.events else None
        if last is not None and (last[1] != DRAW or game.hand_over):
            out.append(last_turn_sentence(game.events, self.names, self.viewer))
        if game.hand_over:
            self.sheet.close_hand(game)
            out += narrate_hand_end(game, self.names)
        return out

    def pending_sentence(self):
        """The turn in progress (draws so far), if any."""
        events = self.game.events
        if events and events[-1][1] == DRAW and not self.game.hand_over:
            return last_turn_sentence(events, self.names, self.viewer)
        return None

    def next_hand(self):
        """Deal the next hand; returns the sentence that announces it."""
        self.game.start_next_hand(self.rng)
        self.recorder.hand_dealt()
        return [lead_sentence(self.game, self.names)]

    def record(self, seats):
        """The game's record so far, with ``seats`` (a spec or a label per seat)."""
        return self.recorder.record([self.seed], seats=list(seats))
