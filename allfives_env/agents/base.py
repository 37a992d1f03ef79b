"""The agent protocol: what the arena, the envs and training need from a player.

An agent is any object with two methods::

    reset(seat, config, rng)            # a new game: my seat, the RulesConfig, a numpy Generator
    act(view, legal_actions) -> int     # choose one of legal_actions

The arena calls ``act`` only when the seat has a choice (a single legal
action, e.g. a forced draw, is played for it); everything that happened is
in ``view.events`` anyway.

``view`` is a :class:`~allfives_env.rules.view.PlayerView`: the seat's own
hand and the public history only, as copies (no reference to the game).
Learned policies get their observation vector through
``view.observation(encoder)``, which encodes a stand-in game built from the
view. All randomness must come from the ``rng``
given to :meth:`reset`, so a seeded arena replays every game exactly.

Agents are built from spec strings by :mod:`allfives_env.agents.registry`.
"""

from typing import Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    """What the arena needs from a player."""

    def reset(self, seat: int, config, rng) -> None:
        """Start a new game at ``seat`` under ``config``; keep ``rng`` for all random choices."""

    def act(self, view, legal_actions) -> int:
        """Return one action id from ``legal_actions`` (a non-empty sequence)."""


class BaseAgent:
    """Convenience base: stores seat, config and rng on :meth:`reset`."""

    name = "agent"
    #: Whether the agent's first decision compiles numba kernels (or loads them from the cache): the
    #: arena then warms it up before timing its games.
    compiles_on_first_call = False

    def __init__(self):
        self.seat, self.config, self.rng = 0, None, None

    def reset(self, seat, config, rng):
        self.seat, self.config, self.rng = seat, config, rng

    def act(self, view, legal_actions):  # pragma: no cover - abstract
        raise NotImplementedError
