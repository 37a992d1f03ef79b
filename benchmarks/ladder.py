"""The ladder: every shipped and scripted player rated against every other, per player count.

    python benchmarks/ladder.py [--players 2 3 4] [--games 400] [--seed 2027] [--workers 1]
                                [--extra SPEC ...] [--json docs/results/ladder.json]
                                [--plot docs/plots/ladder.png] [--markdown docs/results/ladder.md]

For each player count a round robin (``allfives rate``: every pair, every triple with 3 players,
plays a duplicate match of ``--games`` games with seat rotation) over random, greedy, heuristic,
the compiled search (the default search's algorithm and budget, 24, 40 and 48 worlds with 2, 3
and 4 players, at a fiftieth of its CPU), the shipped policy ``checkpoints/ppo_Np.pt``
(opponent-agnostic: no opponent model) and the champion (the compiled search with heuristic
rollouts and the policy's value), plus any ``--extra`` specs. Three ratings come from the same
games: Elo (a Bradley-Terry fit with its 95% margin), Nash averaging (which handles
non-transitive pools: an agent outside the equilibrium has a negative skill) and, with the
``openspiel`` extra, alpha-Rank. The plot shows each player count's Elo with its margin.
"""

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from allfives_env.arena import check_agents, format_alpharank, format_nash, format_ratings, rate_agents  # noqa: E402
from allfives_env.arena.outputs import write_output  # noqa: E402
from allfives_env.arena.population import alpha_rank, nash_averaging, win_rate_matrix  # noqa: E402
from allfives_env.arena.ratings import refuse_repeated_specs  # noqa: E402
from allfives_env.integrations.run_args import ScriptHelp, check_run_args  # noqa: E402
from allfives_env.rules import RulesConfig  # noqa: E402
from benchmarks.match_args import add_match_arguments  # noqa: E402

SCRIPTED = ["random", "greedy", "heuristic", "search:engine=compiled"]


def pool(players, extra=()):
    """The ladder's agents for ``players``: the scripted ones, the shipped policy, the champion, then ``extra``."""
    return [*SCRIPTED, f"ppo:checkpoints/ppo_{players}p.pt", "champion", *extra]


def rate_pool(players, specs, games, seed, workers, target=None):
    """One player count's round robin with its three ratings (alpha-Rank only where OpenSpiel is installed)."""
    started = time.perf_counter()
    rating = rate_agents(RulesConfig(num_players=players, target=target), specs, games, seed=seed, workers=workers)
    rates, names = win_rate_matrix(rating)
    rating["nash"] = nash_averaging(rates, names)
    try:
        rating["alpharank"] = alpha_rank(rates, names)
    except ValueError:  # no OpenSpiel: Elo and Nash averaging only
        rating["alpharank"] = None
    rating["win_rates"] = rates.tolist()
    rating["seconds"] = time.perf_counter() - started
    return rating


def markdown(ratings) -> str:
    """One table per player count: Elo with its margin, Nash mass and skill, alpha-Rank mass."""
    lines = []
    for rating in ratings:
        nash = {a["spec"]: a for a in rating["nash"]["agents"]}
        alpha = {a["spec"]: a for a in rating["alpharank"]["agents"]} if rating["alpharank"] else {}
        lines += [f"### {rating['players']} players", "",
                  f"{rating['games_per_match']} games per match, deal seed {rating['seed']}.", "",
                  "| agent | Elo | ± 95% | Nash mass | Nash skill | α-Rank mass |", "| --- | ---: | ---: | ---: | ---: | ---: |"]
        for agent in sorted(rating["agents"], key=lambda a: -a["elo"]):
            spec = agent["spec"]
            mass = f"{alpha[spec]['mass']:.3f}" if spec in alpha else "-"
            lines.append(f"| `{spec}` | {agent['elo']:.0f} | {1.96 * agent['elo_sd']:.0f} | {nash[spec]['mass']:.3f} | "
                         f"{nash[spec]['skill']:+.3f} | {mass} |")
        lines.append("")
    return "\n".join(lines)


def plot(ratings, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(ratings), figsize=(4.6 * len(ratings), 3.6), squeeze=False)
    for ax, rating in zip(axes[0], ratings):
        agents = sorted(rating["agents"], key=lambda a: a["elo"])
        names = [a["spec"].replace(":checkpoints/", ":").replace("search:engine=compiled", "search") for a in agents]
        ax.barh(names, [a["elo"] - 1500 for a in agents], left=1500, xerr=[1.96 * a["elo_sd"] for a in agents],
                color="#2f7d4f", capsize=3)
        ax.axvline(1500, color="#888", lw=0.8)
        ax.set_title(f"{rating['players']} players ({rating['games_per_match']} games per match)")
        ax.set_xlabel("Elo (95% margin)")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=ScriptHelp)
    add_match_arguments(parser, seed=2027, workers=1)
    parser.add_argument("--target", type=float, default=None, help="points to win (default: the R3 target)")
    parser.add_argument("--extra", nargs="*", default=[], metavar="SPEC", help="more agents for every player count")
    parser.add_argument("--json", help="write every rating here")
    parser.add_argument("--plot", help="write the Elo plot here (PNG)")
    parser.add_argument("--markdown", help="write the tables here")
    args = parser.parse_args(argv)
    try:  # before the first game: a bad value found after an hour of play would lose the hour
        check_run_args(args, positive=["workers"], specs=["extra"], outputs=["json", "markdown"], images=["plot"],
                       inputs=[spec for players in args.players for spec in pool(players)])
        for players in args.players:  # every player count's pool, before the first count's games
            refuse_repeated_specs(pool(players, args.extra), f"the {players}-player ladder (the pool and --extra)")
            check_agents(RulesConfig(num_players=players, target=args.target), pool(players, args.extra))
    except ValueError as exc:
        parser.error(str(exc))
    ratings = []
    for players in args.players:
        rating = rate_pool(players, pool(players, args.extra), args.games, args.seed, args.workers, args.target)
        ratings.append(rating)
        tables = [format_ratings(rating), format_nash(rating["nash"])]
        if rating["alpharank"]:
            tables.append(format_alpharank(rating["alpharank"]))
        print("\n\n".join(tables) + f"\n({rating['seconds']:.0f} s)\n", flush=True)
    if args.json:
        write_output(args.json, json.dumps(ratings, indent=2), "--json")
    if args.markdown:
        write_output(args.markdown, markdown(ratings), "--markdown")
    if args.plot:
        plot(ratings, args.plot)


if __name__ == "__main__":
    main()
