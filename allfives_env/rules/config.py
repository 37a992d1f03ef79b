"""The rule variants (V1-V5) as one validated, immutable config object."""

import math
from dataclasses import dataclass, fields
from numbers import Integral, Real

HAND_SIZES = {
    "standard": {2: 9, 3: 7, 4: 5},  # R4
    "five_each": {2: 5, 3: 5, 4: 5},  # V1
    "seven_five": {2: 7, 3: 5, 4: 5},  # V1
}
DEFAULT_TARGETS = {2: 250, 3: 200, 4: 200}  # R3
FIRST_LEADER_METHODS = ("random", "heaviest_tile")  # V3
HAND_SCORING_METHODS = ("bonus", "bonus_net", "penalty")  # V4
DIVISORS = (5, 3)  # V5
#: The highest target accepted: games to it end in minutes; far beyond it a game could run for hours.
MAX_TARGET = 10_000


def is_valid_target(value) -> bool:
    """V2: a real number of points (not a bool), above 0 and at most :data:`MAX_TARGET` (inf: a game that
    never ends)."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return False
    try:
        return math.isfinite(value) and 0 < value <= MAX_TARGET
    except OverflowError:  # an int beyond a float's range
        return False


def sides_for(num_players: int) -> int:
    """R2: two partnerships with 4 players, else each player is a side (for code that has only the count)."""
    return 2 if num_players == 4 else num_players


@dataclass(frozen=True)
class RulesConfig:
    """Everything that can vary between rule sets; the defaults are the standard game.

    Attributes:
        num_players: 2, 3 or 4 (R2); 4 plays as two partnerships.
        hand_size: V1 dealing scheme, ``"standard"`` (9/7/5), ``"five_each"`` or ``"seven_five"``.
        target: V2 points to win; ``None`` means the R3 default for the player count.
        first_leader: V3, ``"random"`` (R5) or ``"heaviest_tile"``; also used after a block (R19).
        hand_scoring: V4, ``"bonus"`` (R21-R23), ``"bonus_net"`` or ``"penalty"``.
        divisor: V5 count divisor, 5 (All Fives) or 3 (All Threes).
    """

    num_players: int = 2
    hand_size: str = "standard"
    target: float = None
    first_leader: str = "random"
    hand_scoring: str = "bonus"
    divisor: int = 5

    def __post_init__(self):
        # R2; a float such as 2.0 would compare equal but break seat ranges later.
        if not is_int(self.num_players) or self.num_players not in (2, 3, 4):
            raise ValueError(f"num_players={self.num_players!r} is not allowed; All Fives is played by 2, 3 or 4 players")
        _check_choice("hand_size", self.hand_size, tuple(HAND_SIZES))
        _check_choice("first_leader", self.first_leader, FIRST_LEADER_METHODS)
        _check_choice("hand_scoring", self.hand_scoring, HAND_SCORING_METHODS)
        if not is_int(self.divisor) or self.divisor not in DIVISORS:  # 5.0 would pass `in` but not the kernels
            raise ValueError(f"divisor={self.divisor!r} is not allowed; allowed: the integer 5 (All Fives) or 3 (All Threes)")
        if self.target is not None:
            if not is_valid_target(self.target):
                raise ValueError(f"target={self.target!r} is not allowed; allowed: a positive number of points up to "
                                 f"{MAX_TARGET:,}, or None for the R3 default")
        # NumPy scalars become Python numbers: an int8 seat count would overflow in sizes computed from it
        object.__setattr__(self, "num_players", int(self.num_players))
        object.__setattr__(self, "divisor", int(self.divisor))
        if self.target is not None:
            object.__setattr__(self, "target", int(self.target) if is_int(self.target) else float(self.target))

    @classmethod
    def from_options(cls, **options) -> "RulesConfig":
        """Build from keyword options, naming any unknown key and the allowed ones."""
        allowed = [f.name for f in fields(cls)]
        unknown = sorted(set(options) - set(allowed))
        if unknown:
            raise ValueError(f"unknown rules option(s) {unknown}; allowed: {allowed}")
        return cls(**options)

    @property
    def num_sides(self) -> int:
        return sides_for(self.num_players)

    @property
    def tiles_per_hand(self) -> int:
        return HAND_SIZES[self.hand_size][self.num_players]

    @property
    def boneyard_size(self) -> int:
        return 28 - self.num_players * self.tiles_per_hand

    @property
    def target_points(self) -> float:
        return DEFAULT_TARGETS[self.num_players] if self.target is None else self.target

    def side_of(self, seat: int) -> int:
        """R2: seats 0 and 2 are side 0, seats 1 and 3 side 1 with 4 players; else side = seat."""
        return seat % 2 if self.num_players == 4 else seat

    def partner_of(self, seat: int):
        """R2: the seat opposite ``seat`` with 4 players (its partner), else None."""
        return (seat + 2) % 4 if self.num_players == 4 else None

    def to_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


def is_int(value) -> bool:
    """An integer (Python or NumPy), but not a bool."""
    return isinstance(value, Integral) and not isinstance(value, bool)


def _check_choice(name, value, allowed):
    if not isinstance(value, str) or value not in allowed:
        raise ValueError(f"{name}={value!r} is not allowed; allowed: {list(allowed)}")
