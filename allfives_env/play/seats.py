"""Who sits where: the agent spec of each seat for ``allfives play`` and ``allfives watch``."""

from ..arena.match import spec_count
from ..rules.config import RulesConfig


def play_seat_specs(num_players, seat, agents, partner=None):
    """Specs per seat for ``allfives play`` (``None`` at the person's seat).

    ``agents`` are the opponents: one spec for all of them, or one per
    opponent seat in seat order. With 4 players the person's partner (the
    seat opposite) is ``partner`` (default: the first opponent spec)."""
    if seat not in range(num_players):
        raise ValueError(f"--seat {seat} is not a seat; allowed 0..{num_players - 1}")
    if num_players != 4 and partner is not None:
        raise ValueError("--partner is only for 4 players (two partnerships)")
    partner_seat = RulesConfig(num_players=num_players).partner_of(seat)
    opponents = [s for s in range(num_players) if s != seat and s != partner_seat]
    agents = list(agents)
    if len(agents) == 1:
        agents = agents * len(opponents)
    if len(agents) != len(opponents):
        seats = (f"{len(opponents)} opponent seat{'s' if len(opponents) > 1 else ''} "
                 f"(seat{'s' if len(opponents) > 1 else ''} {', '.join(map(str, opponents))})")
        raise ValueError(f"{len(agents)} agent specs for {seats}; give one spec for all of them or one per seat")
    specs = [None] * num_players
    for s, spec in zip(opponents, agents):
        specs[s] = spec
    if partner_seat is not None:
        specs[partner_seat] = partner or agents[0]
    return specs


def watch_seat_specs(num_players, agents):
    """Specs per seat for ``allfives watch``: one per side (as in ``allfives eval``;
    with 4 players each partnership's spec plays both its seats), one per seat, or a single spec for all seats."""
    agents = list(agents)
    config = RulesConfig(num_players=num_players)
    sides = config.num_sides
    if len(agents) == 1:
        agents = agents * sides
    if len(agents) == num_players:
        return agents
    if len(agents) == sides:
        return [agents[config.side_of(seat)] for seat in range(num_players)]
    raise ValueError(f"{spec_count(len(agents))} for {num_players} players; give one per side ({sides})"
                     + (", one per seat (4)" if num_players == 4 else "") + " or a single spec for all seats")
