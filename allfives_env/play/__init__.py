"""Play, watch and replay in the terminal."""

from .session import *  # noqa: F401,F403
from .session import __all__  # noqa: F401
