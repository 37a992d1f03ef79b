"""PPO policies: the policy file, the network, the input features and the ``ppo:PATH`` agent."""

from .agent import *  # noqa: F401,F403
from .agent import __all__  # noqa: F401
