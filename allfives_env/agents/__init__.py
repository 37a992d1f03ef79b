"""Baseline agents (random, greedy, heuristic, search) and the agent protocol.

See :mod:`allfives_env.agents.base` for the protocol and :mod:`allfives_env.agents.registry`
for the spec strings.
"""

from .base import Agent, BaseAgent
from .greedy import GreedyAgent, greedy_action
from .heuristic import HeuristicAgent
from .random_agent import RandomAgent
from .registry import make_agent, parse_spec, register_agent, registered_agents
from .search import SearchAgent

__all__ = [
    "Agent", "BaseAgent", "make_agent", "parse_spec", "register_agent", "registered_agents",
    "GreedyAgent", "greedy_action", "HeuristicAgent", "RandomAgent", "SearchAgent",
]
