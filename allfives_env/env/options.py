"""The environment options shared by the AEC env and the batched env, validated once, and the checks of
numbers, counts and seeds that the envs, agents, integrations and training share (one rule, one message)."""

import inspect
import math
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np

EPISODES = ("game", "hand")
REWARDS = ("points", "zero_sum", "win")
#: The env options besides the players, the rules and each env's own knobs (render_mode, backend / num_envs, parallel).
ENV_OPTIONS = ("episode", "reward", "encoder", "auto_forced")


class UnknownOptionError(ValueError):
    """Keyword options a constructor does not take, and the ones it does (``allowed``)."""

    def __init__(self, unknown, allowed):
        self.unknown, self.allowed = sorted(unknown), list(allowed)
        super().__init__(f"unknown option(s) {self.unknown}; allowed: {self.allowed}")

    def __reduce__(self):  # pickled as its fields: worker processes (RLlib's, multiprocessing) send it back
        return type(self), (self.unknown, self.allowed)

    def with_options_of(self, function) -> "UnknownOptionError":
        """The same error for a wrapper whose ``function`` (its ``__init__``) passes its ``**options`` on:
        its own named parameters listed first, then the inner constructor's."""
        own = [name for name, parameter in inspect.signature(function).parameters.items()
               if name != "self" and parameter.kind not in (parameter.VAR_KEYWORD, parameter.VAR_POSITIONAL)]
        return UnknownOptionError(self.unknown, own + [name for name in self.allowed if name not in own])


def check_choice(name, value, allowed):
    """``value`` if it is one of ``allowed``, else a ``ValueError`` naming both."""
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; allowed: {list(allowed)}")
    return value


def check_bool(name, value) -> bool:
    """A real boolean (Python or NumPy); anything else (``"no"``, ``1``) is refused:
    truthiness would turn the string ``"no"`` into ``True``."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise ValueError(f"{name}={value!r} is not allowed; allowed: True or False")


def _finite_real(value) -> bool:
    return isinstance(value, Real) and not isinstance(value, (bool, np.bool_)) and math.isfinite(value)


def check_number(name, value, minimum=None) -> float:
    """A real, finite number (Python or NumPy) as a float, at least ``minimum`` where given; ``True``,
    ``"1"`` and ``nan`` are refused."""
    if _finite_real(value) and (minimum is None or value >= minimum):
        return float(value)
    allowed = "a finite number" if minimum is None else f"a finite number of at least {minimum:g}"
    raise ValueError(f"{name}={value!r} is not allowed; allowed: {allowed}")


def check_positive(name, value) -> float:
    """A real, finite number above 0 as a float (a scale, a time limit)."""
    if _finite_real(value) and value > 0:
        return float(value)
    raise ValueError(f"{name}={value!r} is not allowed; allowed: a positive, finite number")


def check_count(name, value, minimum=1, maximum=None) -> int:
    """A whole number (Python or NumPy, not a bool) from ``minimum`` to ``maximum`` (no upper bound when
    None) as an int; ``2.5``, ``"3"`` and ``True`` are refused."""
    if (isinstance(value, Integral) and not isinstance(value, (bool, np.bool_)) and value >= minimum
            and (maximum is None or value <= maximum)):
        return int(value)
    if maximum is not None:
        allowed = f"a whole number from {minimum} to {maximum:,}"
    else:
        allowed = "a positive whole number" if minimum == 1 else f"a whole number of at least {minimum}"
    raise ValueError(f"{name}={value!r} is not allowed; allowed: {allowed}")


def check_seed(seed, allow_none=True):
    """``seed`` if it is a non-negative integer (Python or NumPy, not a bool) or, with ``allow_none``,
    ``None``; else a ``ValueError``: NumPy would take ``True`` as 1 and answer ``"abc"`` with its own
    ``SeedSequence`` message."""
    if (seed is None and allow_none) or (isinstance(seed, Integral) and not isinstance(seed, (bool, np.bool_))
                                         and seed >= 0):
        return seed
    allowed = "None or a non-negative integer" if allow_none else "a non-negative integer"
    raise ValueError(f"seed={seed!r} is not allowed; allowed: {allowed}")


@dataclass(frozen=True)
class EnvOptions:
    """How an env turns the game into episodes and rewards.

    Attributes:
        episode: ``"game"`` (to the target) or ``"hand"`` (one hand).
        reward: ``"points"``, ``"zero_sum"`` or ``"win"``.
        auto_forced: resolve draws and passes that are the only legal action inside the step.
        encoder: the observation encoder's name (``"default"`` or a registered one).
    """

    episode: str = "game"
    reward: str = "points"
    auto_forced: bool = False
    encoder: str = "default"

    def __post_init__(self):
        check_choice("episode", self.episode, EPISODES)
        check_choice("reward", self.reward, REWARDS)
        object.__setattr__(self, "auto_forced", check_bool("auto_forced", self.auto_forced))
