"""One game between agent objects on a deal seed, and one agent's decision."""

import time

import numpy as np

from ..agents.registry import describe_failure, failure_place
from ..rules.actions import check_action_id
from ..rules.config import RulesConfig
from ..rules.game import Game
from ..rules.record import GameRecorder
from ..rules.view import player_view
from .deals import deal_hand, seed_list, seeded_rng

AGENT_SEED_TAG = 1_000_003  # keeps the agents' default seeds apart from the deal seeds


class AgentError(ValueError):
    """An agent failed during a game: it raised, or returned what is not a legal action. ``seat`` is
    where it sat, ``detail`` what went wrong, ``place`` the line of the agent's code that raised, ``who``
    (when the match knows it) which agent and game."""

    def __init__(self, seat: int, detail: str, place: str = "", who: str = ""):
        super().__init__(seat, detail, place, who)  # the args, so the error pickles back from a worker
        self.seat, self.detail, self.place, self.who = seat, detail, place, who

    def __str__(self):
        at = f" (at {self.place})" if self.place else ""
        return f"{self.who or f'the agent at seat {self.seat}'} {self.detail}{at}"


def is_builtin_agent(agent) -> bool:
    """Whether ``agent`` is one of the shipped players (its failures are the package's bugs): a class of
    the agents layer, or one that says so in its own class body (``shipped_player = True``, not inherited
    by a user's subclass: the integrations layer's openspiel agent)."""
    cls = type(agent)
    return cls.__module__.startswith("allfives_env.agents.") or cls.__dict__.get("shipped_player", False)


def _failed(seat, call, exc) -> AgentError:
    return AgentError(seat, f"failed in {call}: {describe_failure(exc, where=False)}", failure_place(exc))


def agent_rng(deal_seed, seat: int) -> np.random.Generator:
    """The default generator of the agent at ``seat`` in a game on ``deal_seed``."""
    return seeded_rng([*seed_list(deal_seed), AGENT_SEED_TAG, seat])


def choose_action(game: Game, agent):
    """``(action, cpu_seconds)``: the next action of the seat to move and the CPU
    time its agent's ``act`` took. A forced step (one legal action) is taken
    without asking the agent. An agent that raises, or returns what is not
    one of the legal action ids (an integer; whole floats and one-element
    arrays pass as the envs take them), is an :class:`AgentError`."""
    legal = game.legal_actions()
    if len(legal) == 1:
        return legal[0], 0.0
    seat = game.to_move
    view = player_view(game, seat)
    start = time.process_time()  # CPU time: robust to a busy machine
    try:
        action = agent.act(view, view.legal_actions)
    except Exception as exc:  # an agent is any user class: whatever it raises is its failure
        if is_builtin_agent(agent):
            raise  # a bug of this package: its traceback, not one line
        raise _failed(seat, "act()", exc) from exc
    seconds = time.process_time() - start
    action_id = _as_id(seat, action)
    if action_id not in legal:
        raise AgentError(seat, f"chose an illegal action {action_id}; legal: {list(legal)}")
    return action_id, seconds


def seat_agent(agent, seat: int, config: RulesConfig, rng) -> None:
    """``agent.reset(seat, config, rng)``; what it raises is an :class:`AgentError` (a ``ValueError``: the
    agent's own words for a game it cannot play, or its failure on one line), except a shipped agent's bug."""
    try:
        agent.reset(seat, config, rng)
    except ValueError as exc:
        raise AgentError(seat, f"cannot play this game: {' '.join(str(exc).split())}") from exc
    except Exception as exc:
        if is_builtin_agent(agent):
            raise
        raise _failed(seat, "reset()", exc) from exc


def _as_id(seat, action) -> int:
    """An agent's answer as an int (any integer, which may still be illegal), or its AgentError."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, bool):
        return int(action)
    try:
        return check_action_id(action)
    except ValueError as exc:
        raise AgentError(seat, f"did not return an action id: {exc}") from None


def play_game(config: RulesConfig, agents_by_seat, deal_seed, agent_seeds=None, record=False, max_steps=100000):
    """Play one game to the target; returns ``(game, hands_played, act_cpu_seconds_per_seat, record)``.

    ``agents_by_seat`` are agent objects; each is reset with its own
    generator (seeded by ``agent_seeds[seat]``, default :func:`agent_rng`).
    ``deal_seed`` fixes the whole sequence of deals (see
    :mod:`~allfives_env.arena.deals`). ``record``: also return the game's
    record (:mod:`~allfives_env.rules.record`), else ``None``."""
    n = config.num_players
    if len(agents_by_seat) != n:
        raise ValueError(f"{len(agents_by_seat)} agents for {n} seats")
    for seat, agent in enumerate(agents_by_seat):
        rng = agent_rng(deal_seed, seat) if agent_seeds is None else seeded_rng(agent_seeds[seat])
        seat_agent(agent, seat, config, rng)
    game = Game(config)
    recorder = GameRecorder(game) if record else None
    act_seconds = [0.0] * n
    hand_index = steps = 0
    while True:
        deal_hand(game, deal_seed, hand_index)
        steps += _play_hand(game, agents_by_seat, act_seconds, recorder)
        if game.game_over:
            break
        if steps > max_steps:  # pragma: no cover - a guard: every hand ends, and so does a game
            raise RuntimeError(f"the game did not end within {max_steps} steps")
        hand_index += 1
    rec = recorder.record(seed_list(deal_seed)) if recorder is not None else None
    return game, hand_index + 1, act_seconds, rec


def _play_hand(game, agents_by_seat, act_seconds, recorder):
    """Play the dealt hand to its end; adds each seat's CPU time to ``act_seconds``; returns the steps."""
    if recorder is not None:
        recorder.hand_dealt()
    steps = 0
    while not game.hand_over:
        seat = game.to_move
        action, seconds = choose_action(game, agents_by_seat[seat])
        act_seconds[seat] += seconds
        game.step(action)
        if recorder is not None:
            recorder.stepped(action)
        steps += 1
    return steps
