"""Counting the layout's ends and scoring hand ends (R14-R15, R20-R24, V4, V5)."""

MAX_COUNT = 36  # R15: the largest possible count
MAX_POINTS = 35  # R15: the largest scoring count (36 with the divisor 3: V5)
#: The observations give these as fractions of the above; hand sizes and tiles drawn as tenths.
SIZE_SCALE = 10.0


def round5(x) -> int:
    """R20: nearest multiple of 5; remainders 1-2 round down, 3-4 up (7->5, 8->10)."""
    x = int(x)
    return x - x % 5 + (5 if x % 5 >= 3 else 0)


def points_for_count(count: int, divisor: int) -> int:
    """R15/V5: a positive multiple of the divisor scores the count, anything else 0."""
    return count if count > 0 and count % divisor == 0 else 0


def hand_end_points(config, seat_pips, domino_seat):
    """Points each side gets when a hand ends (R21-R24, V4).

    Args:
        config: the :class:`RulesConfig`.
        seat_pips: remaining pips of every seat (drawn tiles included, C6).
        domino_seat: the seat that played its last tile, or ``None`` for a block.

    Returns:
        ``(points, winner)``: a list with each side's points (floats; a 3-player
        tied block splits a bonus in exact halves, R23) and the side that won
        the hand, or ``None`` after a tied block.
    """
    num_sides = config.num_sides
    side_pips = [0] * num_sides
    for seat, pips in enumerate(seat_pips):
        side_pips[config.side_of(seat)] += pips
    points = [0.0] * num_sides

    if domino_seat is not None:
        winners = [config.side_of(domino_seat)]
    else:  # R18: lowest side total wins, ties handled below
        lowest = min(side_pips)
        winners = [side for side in range(num_sides) if side_pips[side] == lowest]

    if config.hand_scoring == "penalty":  # V4: no bonus, everybody pays its own pips
        for seat, pips in enumerate(seat_pips):
            points[config.side_of(seat)] -= round5(pips)
        return points, winners[0] if len(winners) == 1 else None

    if len(winners) == 1:  # R21: one total of all opponents, rounded once
        winner = winners[0]
        opponents = sum(side_pips) - side_pips[winner]
        points[winner] = float(_bonus(config, opponents, side_pips[winner]))
        return points, winner

    if num_sides == 3 and len(winners) == 2:  # R23: split the third player's pips
        (third,) = [side for side in range(3) if side not in winners]
        share = _bonus(config, side_pips[third], side_pips[winners[0]]) / 2
        for side in winners:
            points[side] = share
    return points, None  # R22 (and R23 with a three-way tie): no bonus


def _bonus(config, opponents_pips, own_pips) -> int:
    if config.hand_scoring == "bonus_net":  # V4: round5(opponents - own), never below zero
        return round5(opponents_pips - own_pips) if opponents_pips > own_pips else 0
    return round5(opponents_pips)
