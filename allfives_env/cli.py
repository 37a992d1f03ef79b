"""The ``allfives`` command.

Each subcommand is a pair of functions registered in :data:`SUBCOMMANDS`:
``add_<name>(parser)`` declares its options and ``run_<name>(args) -> int``
runs it. To add one (``train``, ``play``, ``watch``, ``replay``...), write the
pair and add an entry; :func:`main` does the rest. Errors the user can fix
(a bad spec, a missing file, a bad player count) raise ``ValueError`` /
``FileNotFoundError`` and end as one line ``allfives <cmd>: error: ...`` with
exit status 2, no traceback.
"""

import argparse
import json
import sys

from .rules.config import RulesConfig

USAGE_ERROR = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit status 2."""

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(USAGE_ERROR)


def _players(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; allowed player counts: 2, 3, 4") from None
    if n not in (2, 3, 4):
        raise argparse.ArgumentTypeError(f"{n} players is not allowed; All Fives is played by 2, 3 or 4 players")
    return n


def _positive(text):
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n} is not allowed; give a positive whole number")
    return n


def _add_match_options(p):
    p.add_argument("--players", type=_players, default=2, help="2, 3 or 4 (4 = two partnerships)")
    p.add_argument("--games", type=_positive, default=100, help="games to the target (rounded up to whole rotations)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and of every agent")
    p.add_argument("--workers", type=_positive, default=1, help="worker processes")
    p.add_argument("--target", type=float, default=None, help="points to win (default: the R3 target)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


# ------------------------------------------------------------------ eval
def add_eval(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="one spec per side: random, greedy, heuristic, search[:samples=32], ppo:PATH, module:Class")
    _add_match_options(p)
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    p.add_argument("--records", metavar="PATH.jsonl", help="write every game as a replayable JSON line")
    p.add_argument("--rating", action="store_true", help="treat --agents as a pool: round robin and Elo ratings")


def run_eval(args) -> int:
    from .arena import format_table, run_match

    if args.rating:
        return run_rate(args)
    config = _config(args)
    if len(args.agents) != config.num_sides:
        raise ValueError(
            f"{len(args.agents)} agent specs for {config.num_players} players; give exactly {config.num_sides} "
            f"({'one per partnership' if config.num_players == 4 else 'one per player'})"
        )
    match = run_match(config, args.agents, args.games, seed=args.seed, workers=args.workers,
                      progress=not args.no_progress and sys.stderr.isatty(), records_path=args.records)
    print(format_table(match))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(match.to_dict(), f, indent=2)
    return 0


# ------------------------------------------------------------------ rate
def add_rate(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="the pool of agent specs")
    _add_match_options(p)
    p.add_argument("--json", metavar="PATH", help="write the ratings as JSON")


def run_rate(args) -> int:
    from .arena import format_ratings, rate_agents

    config = _config(args)
    rating = rate_agents(config, args.agents, args.games, seed=args.seed, workers=args.workers,
                         progress=not args.no_progress and sys.stderr.isatty())
    print(format_ratings(rating))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rating, f, indent=2)
    return 0


def _config(args):
    return RulesConfig(num_players=args.players, target=args.target)


#: name -> (add options, run, help)
SUBCOMMANDS = {
    "eval": (add_eval, run_eval, "play agents against each other with duplicate deals"),
    "rate": (add_rate, run_rate, "round-robin a pool of agents and print Elo ratings"),
}


def build_parser():
    parser = _Parser(prog="allfives", description="All Fives dominoes: environment, agents and arena")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, (add, run, help_text) in SUBCOMMANDS.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        add(p)
        p.set_defaults(_run=run, _prog=p.prog)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args._run(args)
    except (ValueError, FileNotFoundError) as exc:
        sys.stderr.write(f"{args._prog}: error: {exc}\n")
        return USAGE_ERROR
    except KeyboardInterrupt:
        sys.stderr.write(f"{args._prog}: interrupted\n")
        return 130


if __name__ == "__main__":
    sys.exit(main())
