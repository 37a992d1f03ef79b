"""A match's results and the statistics per agent, with 95% Wilson intervals.

Per agent: game win rate with a 95% Wilson interval (a drawn game, possible
only with 3 players (R25), is shared by its winners: half a win each), points per
game (its side's final score), point margin per game (its score minus the
mean of the other sides' scores), points per hand and mean hands per game.
"""

import math
from dataclasses import dataclass, field

from ..rules.config import RulesConfig


@dataclass
class GameResult:
    """One finished game. ``side_agent[s]`` is the agent index playing side ``s``."""

    deal: int
    rotation: int
    side_agent: tuple
    scores: tuple
    winners: tuple
    hands: int
    seconds: float
    act_seconds: tuple  # per side: CPU time spent in act() (process time: robust to a busy machine)
    record: dict = None


@dataclass
class AgentStats:
    """One agent's totals over a match's games."""

    spec: str
    games: int = 0
    wins: float = 0.0
    points: float = 0.0
    margin: float = 0.0
    hands: int = 0
    act_seconds: float = 0.0

    @property
    def win_rate(self):
        return self.wins / self.games if self.games else float("nan")

    def add(self, game: GameResult, side: int):
        """Count ``game``, in which this agent played ``side``."""
        self.games += 1
        if side in game.winners:
            self.wins += 1.0 / len(game.winners)  # a drawn game is shared by its winners
        self.points += game.scores[side]
        others = [score for s, score in enumerate(game.scores) if s != side]
        self.margin += game.scores[side] - sum(others) / len(others)
        self.hands += game.hands
        self.act_seconds += game.act_seconds[side]

    def to_dict(self):
        lo, hi = wilson_interval(self.wins, self.games)
        g = max(self.games, 1)
        return {
            "spec": self.spec, "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
            "win_rate_ci95": [lo, hi], "points_per_game": self.points / g, "margin_per_game": self.margin / g,
            "points_per_hand": self.points / max(self.hands, 1), "hands_per_game": self.hands / g,
            "act_cpu_seconds_per_game": self.act_seconds / g,
        }


@dataclass
class MatchResult:
    """The games of a match between ``specs`` (one per side) on ``seed``."""

    config: RulesConfig
    specs: list
    seed: int
    games: list = field(default_factory=list)

    def agent_stats(self) -> list:
        stats = [AgentStats(str(s)) for s in self.specs]
        for game in self.games:
            for side, idx in enumerate(game.side_agent):
                stats[idx].add(game, side)
        return stats

    def to_dict(self) -> dict:
        n = max(len(self.games), 1)
        return {
            "games": len(self.games), "players": self.config.num_players, "seed": self.seed,
            "rules": self.config.to_dict(),
            "deals": len({g.deal for g in self.games}), "rotations": self.config.num_sides,
            "seconds_per_game": sum(g.seconds for g in self.games) / n,
            "agents": [s.to_dict() for s in self.agent_stats()],
        }


def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple:
    """95% Wilson score interval for a proportion (half successes allowed): ``successes`` from 0 to ``n``, ``z``
    positive; no games (``n`` 0) know nothing: (0, 1)."""
    if not (math.isfinite(z) and z > 0):
        raise ValueError(f"z={z!r} is not allowed; allowed: a positive number (1.96 for 95%)")
    if not 0 <= successes <= max(n, 0):  # nan included
        raise ValueError(f"successes={successes!r} of n={n!r} is not allowed; allowed: 0 to n")
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)
