"""Plain-text tables of a match's statistics and of a rating (Elo, alpha-Rank, Nash averaging)."""

from .stats import MatchResult


def format_table(match: MatchResult) -> str:
    """A header line and one row per agent: win rate with its 95% interval, points, margins, hands, CPU time."""
    d = match.to_dict()
    head = (f"{d['games']} games, {d['players']} players, {d['deals']} deals x {d['rotations']} rotations, "
            f"seed {d['seed']}, {d['seconds_per_game']:.3f} s/game")
    rows = [("agent", "win rate", "95% CI", "pts/game", "margin/game", "pts/hand", "hands/game", "act cpu s/game")]
    for a in d["agents"]:
        lo, hi = a["win_rate_ci95"]
        rows.append((a["spec"], f"{a['win_rate']:.3f}", f"[{lo:.3f}, {hi:.3f}]", f"{a['points_per_game']:.1f}",
                     f"{a['margin_per_game']:+.1f}", f"{a['points_per_hand']:.2f}", f"{a['hands_per_game']:.2f}",
                     f"{a['act_cpu_seconds_per_game']:.3f}"))
    return "\n".join([head, *grid_lines(rows)])


def format_ratings(rating: dict) -> str:
    """A header line and the agents by Elo, best first, with 95% margins (a dict from ``rate_agents``)."""
    rows = [("agent", "Elo", "+/- 95%")]
    for a in sorted(rating["agents"], key=lambda a: -a["elo"]):
        rows.append((a["spec"], f"{a['elo']:.0f}", f"{1.96 * a['elo_sd']:.0f}"))
    head = (f"round robin, {rating['players']} players, {rating['games_per_match']} games per match, "
            f"seed {rating['seed']}")
    return "\n".join([head, *grid_lines(rows)])


def format_alpharank(result: dict) -> str:
    """A header line and the agents by alpha-Rank, best first (a dict from ``population.alpha_rank``)."""
    rows = [("rank", "agent", "mass")]
    for a in sorted(result["agents"], key=lambda a: a["rank"]):  # ties in pool order
        rows.append((str(a["rank"]), a["spec"], f"{a['mass']:.3f}"))
    head = (f"AlphaRank by OpenSpiel, alpha {result['alpha']:g}, population {result['population_size']}: "
            f"stationary mass; equal masses share a rank")
    return "\n".join([head, *grid_lines(rows)])


def format_nash(result: dict) -> str:
    """A header line and the agents by Nash-averaged skill, best first (a dict from
    ``population.nash_averaging``)."""
    rows = [("agent", "Nash mass", "skill")]
    # best skill first, then most mass; ties (to 6 decimals) in pool order
    for a in sorted(result["agents"], key=lambda a: (-round(a["skill"], 6), -round(a["mass"], 6))):
        rows.append((a["spec"], f"{a['mass']:.3f}", f"{a['skill']:+.3f}"))
    head = (f"Nash averaging, {result['implementation']}: skill = win minus loss rate against "
            f"the equilibrium")
    return "\n".join([head, *grid_lines(rows)])


def grid_lines(rows) -> list:
    """``rows`` (the first is the heading) as lines of left-aligned columns, with a rule under the heading."""
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return lines
