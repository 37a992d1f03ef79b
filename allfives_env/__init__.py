"""allfives-env: All Fives dominoes for reinforcement learning.

``env()`` / ``raw_env()`` give the PettingZoo AEC environment; the rules
engine lives in :mod:`allfives_env.rules`.
"""

from .env import IllegalActionError, env, raw_env
from .rules import RulesConfig

__all__ = ["env", "raw_env", "IllegalActionError", "RulesConfig"]
__version__ = "0.1.0"
