"""Matches between agents: duplicate deals, seat rotation, statistics, records, ratings.

Modules, one job each: :mod:`.deals` (a game's deals from its seed),
:mod:`.game` (one game, one decision), :mod:`.schedule` (deals, rotations,
seeds of a match), :mod:`.match` (running a match), :mod:`.stats` (results,
statistics, Wilson intervals), :mod:`.ratings` (round robin and Elo),
:mod:`.population` (alpha-Rank and Nash averaging of its win rates),
:mod:`.tables` (text tables). Game records are the one format of
:mod:`allfives_env.rules.record`; :func:`replay_record` is its replay.
"""

from ..rules.record import replay as replay_record
from .deals import hand_deal
from .game import AgentError, agent_rng, choose_action, play_game
from .match import check_agents, run_match
from .population import alpha_rank, nash_averaging, win_rate_matrix
from .ratings import rate_agents
from .schedule import rotations
from .stats import AgentStats, GameResult, MatchResult, wilson_interval
from .tables import format_alpharank, format_nash, format_ratings, format_table

__all__ = [
    "GameResult", "AgentStats", "MatchResult", "AgentError", "play_game", "choose_action", "agent_rng", "rotations",
    "run_match", "check_agents", "wilson_interval", "replay_record", "hand_deal", "rate_agents", "format_table",
    "format_ratings", "win_rate_matrix", "alpha_rank", "nash_averaging", "format_alpharank", "format_nash",
]
