"""The server's games: one :class:`WebGame` per game played or watched in a browser, kept in a :class:`GameStore`.

Every change to a game bumps its ``version``; a request that changes a game
names the version it saw, so a move sent from a page that is behind (a second
tab, a double click) is refused instead of being applied to a position the
person never saw. A refused request raises :class:`RequestError` and changes
nothing. Each game has its own lock: requests for one game run one at a time,
requests for different games run side by side.
"""

import logging
import secrets
import threading
from collections import OrderedDict

from ...agents.registry import describe_failure
from ...arena.game import AgentError
from ...rules.actions import DRAW, NUM_ACTIONS, action_name
from ...rules.record import record_line
from ..narrate import lead_sentence
from ..table import Table
from .views import position_view

_log = logging.getLogger(__name__)
PLAY, WATCH = "play", "watch"
#: what a game waits for: the person's move, an agent's turn, the next deal, nothing
WAIT_PERSON, WAIT_AGENT, WAIT_DEAL, WAIT_NOTHING = "person", "agent", "next_hand", "over"


class RequestError(ValueError):
    """A request the server refuses: ``status`` is its HTTP status, the message says what was wrong."""

    def __init__(self, message, status=400):
        super().__init__(message)
        self.status = status


class WebGame:
    """One game at a browser table: a :class:`~allfives_env.play.table.Table`, its mode
    (``"play"``: a person at ``human_seat``; ``"watch"``: agents only), the current
    hand's sentences and a version."""

    def __init__(self, game_id, mode, config, agents, names, seat_specs, seed, human_seat=None):
        self.id = game_id
        self.mode = mode
        self.human_seat = human_seat
        self.seat_specs = list(seat_specs)
        self.table = Table(config, agents, names, seed, viewer=human_seat)
        self.log = [lead_sentence(self.table.game, names)]
        self.version = 0
        self.lock = threading.Lock()

    @property
    def game(self):
        return self.table.game

    def waiting_for(self) -> str:
        game = self.game
        if game.game_over:
            return WAIT_NOTHING
        if game.hand_over:
            return WAIT_DEAL
        return WAIT_PERSON if game.to_move == self.human_seat else WAIT_AGENT

    def view(self) -> dict:
        """What the page shows: the position as :func:`position_view` gives it to the person's
        seat (a spectator in watch mode), plus the game's id, mode, version and what it waits for."""
        pending = self.table.pending_sentence()
        happened = self.log + ([pending] if pending else [])
        view = position_view(self.game, self.table.names, self.human_seat, happened, self.table.sheet)
        view.update(id=self.id, mode=self.mode, version=self.version, waiting_for=self.waiting_for(),
                    seat_specs=self.seat_specs, seed=self.table.seed if self._may_see_everything() else None,
                    record_ready=self._may_see_everything())
        return view

    def _may_see_everything(self) -> bool:
        """The seed and the record reveal every deal: a seated person gets them when the game is over."""
        return self.human_seat is None or self.game.game_over

    # ------------------------------------------------------------------ changes
    def move(self, version, action) -> None:
        """The person's ``action`` (an action id) at ``version``."""
        self._check_version(version)
        if self.waiting_for() != WAIT_PERSON:
            raise RequestError(f"it is not your move now (the game waits for {self._waiting_text()})", 409)
        legal = self.game.legal_actions()
        if action not in legal:
            shown = action_name(action) if 0 <= action < NUM_ACTIONS else str(action)
            raise RequestError(f"{shown} is not a legal move here; legal: {', '.join(map(action_name, legal))}")
        self._step(action)

    def advance(self, version) -> None:
        """At ``version``: the next agent's whole turn (its draws and its play or pass), or the next deal."""
        self._check_version(version)
        waiting = self.waiting_for()
        if waiting == WAIT_AGENT:
            self._agent_turn()
        elif waiting == WAIT_DEAL:
            self.log = self.table.next_hand()
            self.version += 1
        else:
            raise RequestError(f"nothing to advance: the game waits for {self._waiting_text()}", 409)

    def _agent_turn(self):
        seat = self.game.to_move
        while not self.game.hand_over and self.game.to_move == seat:
            action = self._agent_action(seat)
            self._step(action)
            if action != DRAW:
                break

    def _agent_action(self, seat):
        """The agent's choice; an agent that fails (an exception, an illegal choice) is the server's error
        (500), named in one line: only the forced draws before its choice were played."""
        try:
            return self.table.agent_action()
        except Exception as exc:  # an agent is any user class: whatever it raises ends its turn here
            _log.warning("the agent at seat %d (%s) failed in game %s", seat, self.seat_specs[seat], self.id,
                         exc_info=True)  # the traceback, for its author, goes to the server's log
            detail = exc.detail if isinstance(exc, AgentError) else f"failed: {describe_failure(exc, where=False)}"
            raise RequestError(f"the agent at seat {seat} ({self.seat_specs[seat]}) {detail[:300]}; "
                               "this game cannot go on with it, start a new one", 500) from None

    def _step(self, action):
        self.log += self.table.step(action)
        self.version += 1

    def _check_version(self, version):
        if version > self.version:  # not sent by this game's page
            raise RequestError(f"version {version} is not a version of this game, which is at version "
                               f"{self.version}; send the version the game's last answer gave", 409)
        if version != self.version:
            raise RequestError(f"stale request: it was sent at version {version}, but the game has moved on to "
                               f"version {self.version}; the page now shows the current position", 409)

    def _waiting_text(self):
        return {WAIT_PERSON: "your move", WAIT_AGENT: "an agent's turn", WAIT_DEAL: "the next deal",
                WAIT_NOTHING: "nothing: the game is over"}[self.waiting_for()]

    def record_text(self) -> str:
        """The game so far as one JSONL record line (the format of :mod:`allfives_env.rules.record`);
        for a person's game only once it is over (the record holds every hand and the boneyard)."""
        if not self._may_see_everything():
            raise RequestError("the record holds every hand and the boneyard: it is ready when the game is over", 409)
        return record_line(self.table.record(self.seat_specs))


class GameStore:
    """The games the server holds, by id; the least recently used goes when ``capacity`` is reached."""

    def __init__(self, capacity=64):
        self.capacity = capacity
        self._games = OrderedDict()
        self._lock = threading.Lock()

    def add(self, make_game) -> WebGame:
        """Store ``make_game(game_id)`` under a fresh unguessable id."""
        game = make_game(secrets.token_urlsafe(9))
        with self._lock:
            self._games[game.id] = game
            while len(self._games) > self.capacity:
                self._games.popitem(last=False)
        return game

    def get(self, game_id) -> WebGame:
        with self._lock:
            game = self._games.get(game_id)
            if game is None:
                shown = game_id if len(game_id) <= 40 else game_id[:37] + "..."
                raise RequestError(f"no game {shown!r} on this server (it ended with the server, or was "
                                   f"dropped to keep the last {self.capacity}); start a new one", 404)
            self._games.move_to_end(game_id)
        return game

    def __len__(self):
        return len(self._games)
