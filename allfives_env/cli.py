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


# ------------------------------------------------------------------ play / watch / replay / record
def _add_table_options(p):
    p.add_argument("--players", type=_players, default=2, help="2, 3 or 4 (4 = two partnerships)")
    p.add_argument("--seed", type=int, default=None, help="seed of the deals and agents (default: fresh each run)")
    p.add_argument("--target", type=float, default=None, help="points to win (default: the R3 target)")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")


def _seed(args):
    import random

    return args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)


def _agents_for(specs):
    from .agents.registry import make_agent

    return [None if spec is None else make_agent(spec) for spec in specs]


def _names_for(specs, human_seat=None):
    return [f"You (player_{s})" if s == human_seat else f"player_{s} ({spec})" for s, spec in enumerate(specs)]


def add_play(p):
    p.add_argument("--agents", nargs="+", default=["heuristic"], metavar="SPEC",
                   help="your opponents: one spec for all, or one per opponent seat in seat order (default heuristic)")
    p.add_argument("--seat", type=int, default=0, help="your seat (default 0); play goes 0, 1, 2, ...")
    p.add_argument("--partner", metavar="SPEC", help="4 players: your partner's spec (default: the first of --agents)")
    p.add_argument("--record", metavar="PATH.jsonl", help="write the game as a replayable record")
    _add_table_options(p)


def run_play(args) -> int:
    from .play import make_console, play_seat_specs, play_session

    specs = play_seat_specs(args.players, args.seat, args.agents, args.partner)
    agents = _agents_for(specs)
    console = make_console(color=False if args.no_color else None)
    seats = ["human" if s is None else s for s in specs]
    return play_session(_config(args), args.seat, agents, _names_for(specs, args.seat), _seed(args), sys.stdin,
                        console, echo=not sys.stdin.isatty(), record_path=args.record, seat_specs=seats)


def add_watch(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="one spec per side (as for eval; with 4 players one per partnership) or one per seat")
    p.add_argument("--delay", type=float, default=None,
                   help="seconds between screens (default 0.8 on a terminal, 0 otherwise)")
    p.add_argument("--record", metavar="PATH.jsonl", help="write the game as a replayable record")
    _add_table_options(p)


def run_watch(args) -> int:
    from .play import make_console, watch_seat_specs, watch_session

    specs = watch_seat_specs(args.players, args.agents)
    console = make_console(color=False if args.no_color else None)
    delay = args.delay if args.delay is not None else (0.8 if console.is_terminal else 0.0)
    if delay < 0:
        raise ValueError(f"--delay {delay} is negative; give seconds >= 0")
    return watch_session(_config(args), _agents_for(specs), _names_for(specs), _seed(args), console, delay=delay,
                         record_path=args.record, seat_specs=specs)


def add_replay(p):
    p.add_argument("record", metavar="RECORD.jsonl", help="game records (allfives eval --records, play/watch --record)")
    p.add_argument("--game", type=_positive, default=1, help="which game of the file, from 1 (default 1)")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")


def run_replay(args) -> int:
    from .play import load_record, make_console, replay_session

    record = load_record(args.record, args.game - 1)
    console = make_console(color=False if args.no_color else None)
    return replay_session(record, sys.stdin, console, echo=not sys.stdin.isatty())


def add_record(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="as for watch")
    p.add_argument("--out", required=True, metavar="PATH",
                   help="game.gif for an animated GIF; any other path is a folder of PNG frames (for a video)")
    p.add_argument("--frame-seconds", type=float, default=0.6, help="seconds per GIF frame (default 0.6)")
    p.add_argument("--players", type=_players, default=2, help="2, 3 or 4 (4 = two partnerships)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and agents")
    p.add_argument("--target", type=float, default=None, help="points to win (default: the R3 target)")


def run_record(args) -> int:
    import io

    from .env.render.image import render_rgb, save_animation
    from .play import make_console, watch_seat_specs, watch_session

    specs = watch_seat_specs(args.players, args.agents)
    names = _names_for(specs)
    frames = []
    watch_session(_config(args), _agents_for(specs), names, args.seed, make_console(io.StringIO(), color=False),
                  frame_sink=lambda game: frames.append(render_rgb(game, names)))
    written = save_animation(frames, args.out, args.frame_seconds)
    print(f"{len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]} written to "
          f"{args.out if len(written) == 1 else args.out + '/frame_*.png'}")
    return 0


#: name -> (add options, run, help)
SUBCOMMANDS = {
    "eval": (add_eval, run_eval, "play agents against each other with duplicate deals"),
    "rate": (add_rate, run_rate, "round-robin a pool of agents and print Elo ratings"),
    "play": (add_play, run_play, "play a game in the terminal against agents"),
    "watch": (add_watch, run_watch, "watch agents play a game in the terminal"),
    "replay": (add_replay, run_replay, "step through a recorded game and check its scores"),
    "record": (add_record, run_record, "write a game of agents as an animated GIF or PNG frames"),
}
#: Entry points that add subcommands (the trainer registers ``train``): each gives ``(add options, run, help)``.
PLUGIN_GROUP = "allfives_env.commands"


def plugin_commands() -> dict:
    """Subcommands from installed entry points, loaded only when the parser is built."""
    from importlib.metadata import entry_points

    return {ep.name: ep.load()() for ep in entry_points(group=PLUGIN_GROUP)}


def build_parser():
    parser = _Parser(prog="allfives", description="All Fives dominoes: environment, agents and arena")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name, (add, run, help_text) in {**SUBCOMMANDS, **plugin_commands()}.items():
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
