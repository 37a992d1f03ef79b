"""Matches between agents: duplicate deals, seat rotation, statistics, records, ratings."""

from .match import *  # noqa: F401,F403
from .match import __all__  # noqa: F401
