"""Episode rewards from the engine's points, for the AEC env and the OpenSpiel game alike.

The batched env's twin is :func:`allfives_env.compiled.step.set_rewards`; parity
tests tie the two envs' rewards step by step.
"""


def side_rewards(gains, mode: str) -> list:
    """Each side's reward for ``gains`` (points per side): the points themselves (``"points"``) or the
    points minus the mean of the other sides' (``"zero_sum"``)."""
    if mode == "points":
        return list(gains)
    if mode != "zero_sum":
        raise ValueError(f"reward mode {mode!r} has no per-step rewards; allowed: 'points', 'zero_sum'")
    total, others = sum(gains), len(gains) - 1
    return [gain - (total - gain) / others for gain in gains]


def ranked_winners(values) -> set:
    """The sides with the most of ``values``: a hand episode's points, or the scores of a game cut short."""
    best = max(values)
    return {side for side, value in enumerate(values) if value == best}


def side_outcomes(winners, num_sides: int) -> list:
    """+1 for a sole winner, 0 for each winner of a drawn episode, -1 for every other side (R25)."""
    drawn = len(winners) > 1
    return [(0.0 if drawn else 1.0) if side in winners else -1.0 for side in range(num_sides)]
