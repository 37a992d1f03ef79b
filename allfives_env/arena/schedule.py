"""How a match is scheduled: duplicate deals, seat rotation, and the seed of every game.

A match of ``G`` games between one agent spec per side plays
``ceil(G / R)`` *deals*, each once per rotation of the sides over the seats
(``R`` = number of sides: 2 with 2 or 4 players, 3 with 3), so every agent
gets every seat of every deal and the luck of the deal cancels. Rotation
``r`` gives side ``s`` to agent ``(s + r) % R``; with 4 players the two specs
are partnerships (seats 0, 2 = side 0; seats 1, 3 = side 1).

Deal ``d`` of a match on ``seed`` is the deal seed ``(seed, d)`` (see
:mod:`~allfives_env.arena.deals`); the agent at ``seat`` in rotation ``r``
gets a generator seeded by ``(seed, d, r, seat)``. A match is so reproducible
from its seed, with any number of worker processes.
"""

from ..rules.config import RulesConfig

#: The most games a match may ask for: its schedule is built before the first game, in memory.
MAX_GAMES = 1_000_000
#: The most worker processes a match may start.
MAX_WORKERS = 256


def num_deals(games: int, num_sides: int) -> int:
    """Deals needed for ``games`` games: whole rotations, rounded up."""
    return -(-games // num_sides)


def rotations(num_sides: int) -> list:
    """Each rotation as a tuple ``side -> agent index``: ``(s + r) % num_sides``."""
    return [tuple((s + r) % num_sides for s in range(num_sides)) for r in range(num_sides)]


def seat_agents(config: RulesConfig, side_agent) -> list:
    """The agent index at each seat, given the agent index of each side."""
    return [side_agent[config.side_of(seat)] for seat in range(config.num_players)]


def deal_seed(seed: int, deal: int) -> list:
    return [seed, deal]


def agent_seeds(config: RulesConfig, seed: int, deal: int, rotation: int) -> list:
    return [[seed, deal, rotation, seat] for seat in range(config.num_players)]
