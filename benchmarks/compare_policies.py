"""Compare several agents against one opponent on several fresh sets of duplicate deals.

    python benchmarks/compare_policies.py --players 4 --opponent greedy --seeds 1809 1910 2011 \\
        --games 2000 --workers 2 --json out.json \\
        shipped=ppo:checkpoints/ppo_4p.pt candidate=ppo:runs/RUN/policy.pt

Every agent plays the same deals (the arena's duplicate deals with seat
rotation, ``--games`` per seed). The table gives each agent's win rate on each
deal set, the pooled win rate with its 95% Wilson interval, and its *paired*
difference from the first agent: the mean over deals of the difference in wins
on the same deal, with a 95% interval from the spread of those per-deal
differences. The luck of the deal is common to both agents, so the paired
interval is narrower than the two separate intervals suggest. Choosing between
runs on a set of deals overstates the chosen one on those deals; confirm a
choice on seeds not used to make it.
"""

import argparse
import json
import math
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from allfives_env.arena import check_agents, run_match, wilson_interval  # noqa: E402
from allfives_env.arena.outputs import write_output  # noqa: E402
from allfives_env.cli import games_arg, workers_arg  # noqa: E402
from allfives_env.integrations.run_args import ScriptHelp, check_run_args  # noqa: E402
from allfives_env.rules import RulesConfig  # noqa: E402

Z95 = 1.959963984540054


def deal_wins(match) -> dict:
    """Wins of the match's first agent per deal (summed over the deal's rotations; a draw is half)."""
    wins = defaultdict(float)
    for game in match.games:
        side = game.side_agent.index(0)
        wins[game.deal] += 1.0 / len(game.winners) if side in game.winners else 0.0
    return dict(wins)


def paired_difference(candidate: dict, reference: dict, games_per_deal: int) -> tuple:
    """Mean per-game win-rate difference over shared (seed, deal) keys and its 95% half-width (None
    from a single deal: no spread to measure)."""
    keys = sorted(set(candidate) & set(reference))
    diffs = [(candidate[k] - reference[k]) / games_per_deal for k in keys]
    n = len(diffs)
    mean = sum(diffs) / n
    if n < 2:
        return mean, None
    var = sum((d - mean) ** 2 for d in diffs) / (n - 1)
    return mean, Z95 * math.sqrt(var / n)


def compare(config, agents: dict, opponent: str, seeds, games: int, workers: int = 1) -> dict:
    """Play every agent against ``opponent`` on every seed's deals; returns the results as a dict."""
    others = [opponent] * (config.num_sides - 1)
    rows = {}
    for name, spec in agents.items():
        per_seed, deals, wins, total = {}, {}, 0.0, 0
        for seed in seeds:
            match = run_match(config, [spec, *others], games, seed=seed, workers=workers)
            stats = match.agent_stats()[0]
            per_seed[seed] = stats.win_rate
            wins += stats.wins
            total += stats.games
            deals.update({(seed, deal): w for deal, w in deal_wins(match).items()})
        lo, hi = wilson_interval(wins, total)
        rows[name] = {"spec": spec, "win_rate_per_seed": per_seed, "games": total, "win_rate": wins / total,
                      "win_rate_ci95": [lo, hi], "_deals": deals}
    reference = next(iter(rows.values()))["_deals"]
    for row in rows.values():
        diff, half = paired_difference(row["_deals"], reference, config.num_sides)
        row["paired_difference_vs_first"] = diff
        row["paired_difference_ci95_half_width"] = half
    for row in rows.values():  # only now: every row above needed the reference's per-deal wins
        row.pop("_deals")
    return {"players": config.num_players, "opponent": opponent, "seeds": list(seeds),
            "games_per_seed": next(iter(rows.values()))["games"] // len(seeds), "agents": rows}


def format_comparison(result: dict) -> str:
    seeds = result["seeds"]
    names = list(result["agents"])
    width = max(len("agent"), *(len(n) for n in names))
    head = f"{'agent':<{width}} " + " ".join(f"{s:>7}" for s in seeds) + "   pooled [95% CI]        paired diff vs first"
    lines = [head]
    for name in names:
        row = result["agents"][name]
        lo, hi = row["win_rate_ci95"]
        per = " ".join(f"{row['win_rate_per_seed'][s]:7.4f}" for s in seeds)
        diff, half = row["paired_difference_vs_first"], row["paired_difference_ci95_half_width"]
        spread = "n/a (one deal)" if half is None else f"{half:.4f}"
        lines.append(f"{name:<{width}} {per}   {row['win_rate']:.4f} [{lo:.3f}, {hi:.3f}]   {diff:+.4f} +- {spread}")
    lines.append(f"({result['games_per_seed']:,} games per deal set against {result['opponent']}, "
                 f"{result['players']} players)")
    return "\n".join(lines)


def parse_agents(items) -> dict:
    agents = {}
    for item in items:
        name, eq, spec = item.partition("=")
        if not eq or not name or not spec:
            raise ValueError(f"{item!r}: give each agent as NAME=SPEC, e.g. shipped=ppo:checkpoints/ppo_4p.pt")
        if name in agents:
            raise ValueError(f"agent name {name!r} is given twice")
        agents[name] = spec
    return agents


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=ScriptHelp)
    p.add_argument("agents", nargs="+", metavar="NAME=SPEC", help="the agents; the first is the reference")
    p.add_argument("--players", type=int, choices=(2, 3, 4), default=4)
    p.add_argument("--opponent", default="greedy", help="the spec of every other side")
    p.add_argument("--seeds", type=int, nargs="+", required=True, help="one deal set per seed")
    p.add_argument("--games", type=games_arg, default=2000, help="games per seed (rounded up to whole rotations)")
    p.add_argument("--target", type=int, default=None, help="points to win (default: the R3 target)")
    p.add_argument("--workers", type=workers_arg, default=1, help="processes per match")
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    args = p.parse_args(argv)
    try:
        agents = parse_agents(args.agents)
        config = RulesConfig(num_players=args.players, **({} if args.target is None else {"target": args.target}))
        # all before the first game; the results must not replace a file an agent reads
        check_run_args(args, positive=["games", "workers"], outputs=["json"], inputs=[args.opponent, *agents.values()])
        check_agents(config, [args.opponent, *agents.values()])
        negative = [seed for seed in args.seeds if seed < 0]
        if negative:
            raise ValueError(f"--seeds {negative[0]} is not allowed; allowed: non-negative integers")
        repeated = sorted({seed for seed in args.seeds if args.seeds.count(seed) > 1})
        if repeated:  # the same deals twice would be counted as twice the evidence
            raise ValueError(f"--seeds {repeated[0]} is given twice; give each deal set once")
        result = compare(config, agents, args.opponent, args.seeds, args.games, args.workers)
    except ValueError as exc:
        sys.stderr.write(f"compare_policies: error: {exc}\n")
        return 2
    print(format_comparison(result))
    if args.json:
        write_output(args.json, json.dumps(result, indent=1), "--json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
