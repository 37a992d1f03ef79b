"""Strength of the baseline agents, measured with the arena (duplicate deals).

    python benchmarks/agent_strength.py [--scale 1.0] [--workers 2] [--seed 2024] [--json out.json]

Each row is a duplicate match of games to the target; the first spec is the
agent whose win rate is the headline. The baselines' targets (2 players):
greedy beats random in >= 95% of games, heuristic beats greedy in >= 60%,
search beats greedy in >= 80% with a default budget under a second per game.
"""

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from allfives_env.arena import format_table, run_match  # noqa: E402
from allfives_env.arena.outputs import write_output  # noqa: E402
from allfives_env.arena.schedule import MAX_GAMES  # noqa: E402
from allfives_env.cli import seed_arg, workers_arg  # noqa: E402
from allfives_env.integrations.run_args import ScriptHelp, check_run_args  # noqa: E402
from allfives_env.rules import RulesConfig  # noqa: E402

MATCHUPS = [
    # (players, specs, games)
    (2, ["greedy", "random"], 200),
    (2, ["heuristic", "greedy"], 400),
    (2, ["search", "greedy"], 200),
    (2, ["search", "heuristic"], 200),
    (3, ["greedy", "random", "random"], 150),
    (3, ["heuristic", "greedy", "greedy"], 300),
    (3, ["search", "greedy", "greedy"], 150),
    (4, ["greedy", "random"], 200),
    (4, ["heuristic", "greedy"], 400),
    (4, ["search", "greedy"], 200),
]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=ScriptHelp)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply every game count (at least one "
                        "deal's rotations a match)")
    parser.add_argument("--workers", type=workers_arg, default=2, help="processes per match")
    parser.add_argument("--seed", type=seed_arg, default=2024, help="the deal seed of every match")
    parser.add_argument("--only", type=int, choices=(2, 3, 4), help="only this player count")
    parser.add_argument("--json", help="write all results here")
    args = parser.parse_args(argv)
    try:  # before the first game
        check_run_args(args, positive=["scale", "workers"], outputs=["json"],
                       at_most={"scale": MAX_GAMES // max(games for _, _, games in MATCHUPS)})
    except ValueError as exc:
        parser.error(str(exc))
    results = []
    for players, specs, games in MATCHUPS:
        if args.only and players != args.only:
            continue
        games = max(players, int(games * args.scale))
        t0 = time.perf_counter()
        match = run_match(RulesConfig(num_players=players), specs, games, seed=args.seed, workers=args.workers)
        print(format_table(match))
        print(f"  ({time.perf_counter() - t0:.1f} s wall)\n", flush=True)
        results.append(match.to_dict())
    if args.json:
        write_output(args.json, json.dumps(results, indent=2), "--json")


if __name__ == "__main__":
    main()
