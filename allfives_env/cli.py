"""The ``allfives`` command.

Each subcommand is a pair of functions registered in :data:`SUBCOMMANDS`:
``add_<name>(parser)`` declares its options and ``run_<name>(args) -> int``
runs it. To add one (``train``, ``play``, ``watch``, ``replay``...), write the
pair and add an entry; :func:`main` does the rest. Errors the user can fix
(a bad spec, a missing file, a bad player count) raise ``ValueError`` /
``OSError`` and end as one line ``allfives <cmd>: error: ...`` with exit
status 2, no traceback; a flag's wrong value is refused by its argparse type
with the values allowed. An agent that fails during a game (it raises, or
chooses an illegal action) ends as one line too, naming the agent, its seat,
the deal and the line of its code that raised, with exit status 1. Output paths (``--json``, ``--records``,
``--record``, ``record --out``) are checked before the work that fills them.
"""

import argparse
import glob
import json
import math
import os
import sys

from .arena.schedule import MAX_GAMES, MAX_WORKERS
from .rules.config import DEFAULT_TARGETS, MAX_TARGET, RulesConfig, is_valid_target

USAGE_ERROR = 2
AGENT_FAILED = 1  # an agent raised or chose an illegal action during a game: one line too, naming it
#: The optional dependencies a command may import, and the extra (pyproject.toml) that installs each.
EXTRA_OF_MODULE = {"torch": "train", "tensorboard": "train", "matplotlib": "train", "uvicorn": "web",
                   "starlette": "web", "stable_baselines3": "sb3", "sb3_contrib": "sb3", "ray": "rllib",
                   "pyspiel": "openspiel", "open_spiel": "openspiel"}


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (no usage dump) and exit status 2.

    ``intermixed = True`` (set on a parser after it is made, e.g. on a subcommand's) parses its
    positionals wherever they stand among the options (``seed=3 --run-dir D max_minutes=5``): plain
    argparse gives a ``nargs="*"`` positional only its first run of words and calls the rest
    unrecognized. Such a parser is always parsed by argparse's intermixed parse, which works in two
    passes through the plain ``parse_known_args``; a subcommand's parser is reached through it too."""

    intermixed = False
    _in_pass = False

    def parse_known_args(self, args=None, namespace=None):
        if not self.intermixed or self._in_pass:
            return super().parse_known_args(args, namespace)
        self._in_pass = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._in_pass = False

    def error(self, message):
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        sys.exit(USAGE_ERROR)


MAX_DELAY = 60.0
#: GIF frame durations are whole hundredths of a second, at most 655.35 s
MIN_FRAME_SECONDS, MAX_FRAME_SECONDS = 0.01, 600.0
DEFAULT_FRAME_SECONDS = 0.6
DEFAULT_TARGETS_TEXT = (f"the R3 target: {DEFAULT_TARGETS[2]} with 2 players, {DEFAULT_TARGETS[3]} with 3, "
                        f"{DEFAULT_TARGETS[4]} with 4")


def _whole(text, allowed):
    """``text`` as an int, or an argparse error saying what is allowed (``'1.5'``, ``'abc'``)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number; allowed: {allowed}") from None


def number_arg(text, allowed):
    """``text`` as a finite float, or an argparse error saying what is allowed (shared with ``training``)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number; allowed: {allowed}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: {allowed}")
    return value


def players_arg(text):
    allowed = "2, 3 or 4 players"
    n = _whole(text, allowed)
    if n not in (2, 3, 4):
        raise argparse.ArgumentTypeError(f"{n} players is not allowed; All Fives is played by {allowed}")
    return n


def _whole_in(low, high, allowed):
    """An argparse type: a whole number ``low..high`` (``high`` None: no upper end)."""

    def parse(text):
        n = _whole(text, allowed)
        if n < low or (high is not None and n > high):
            raise argparse.ArgumentTypeError(f"{n} is not allowed; allowed: {allowed}")
        return n

    return parse


_positive = _whole_in(1, None, "a positive whole number")
games_arg = _whole_in(1, MAX_GAMES, f"a positive whole number of games up to {MAX_GAMES:,}")
workers_arg = _whole_in(1, MAX_WORKERS, f"a positive whole number of worker processes up to {MAX_WORKERS}")
seed_arg = _whole_in(0, None, "a whole number >= 0")
# the upper end depends on --players: checked with it
_seat = _whole_in(0, None, "a seat 0..players-1 (0..1 with 2 players, 0..2 with 3, 0..3 with 4)")


def _target(text):
    allowed = f"a positive number of points up to {MAX_TARGET:,} (default: {DEFAULT_TARGETS_TEXT})"
    value = number_arg(text, allowed)
    if not is_valid_target(value):
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: {allowed}")
    return int(value) if value == int(value) else value  # 60, not 60.0, in records and the web's options


def _delay(text):
    allowed = f"seconds from 0 to {MAX_DELAY:g}"
    value = number_arg(text, allowed)
    if not 0 <= value <= MAX_DELAY:
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: {allowed}")
    return value


def _frame_seconds(text):
    allowed = f"seconds from {MIN_FRAME_SECONDS:g} to {MAX_FRAME_SECONDS:g}"
    value = number_arg(text, allowed)
    if not MIN_FRAME_SECONDS <= value <= MAX_FRAME_SECONDS:
        raise argparse.ArgumentTypeError(f"{text} is not allowed; allowed: {allowed}")
    return value


# ------------------------------------------------------------------ output paths
def _check_outputs(args, *options, inputs=()):
    """Check every output file option of ``args`` (``"json"``, ``"records"``, ``"record"``) before
    any work starts (:func:`~.arena.outputs.check_outputs`: writable, distinct, not a file that one of
    the agent specs ``inputs`` reads)."""
    from .arena.outputs import check_outputs

    def example(name):
        return "games.jsonl" if name.startswith("record") else "scorecard.md" if name == "markdown" else "results.json"

    check_outputs([(f"--{name}", getattr(args, name, None), example(name)) for name in options], inputs)


def _check_record_file(path):
    """``play``/``watch --record``: the game is added to the file, so the file must be new, empty or hold
    records already (a results JSON named by mistake would be spoilt); checked before the game."""
    if path is None:
        return
    from .arena.outputs import check_output_file
    from .rules.record import read_records

    check_output_file(path, "--record", "games.jsonl")
    if not os.path.isfile(path) or os.path.getsize(path) == 0:
        return

    try:
        read_records(path)
    except (ValueError, UnicodeDecodeError) as exc:
        raise ValueError(f"--record {path} holds something other than game records, and the game is added to "
                         f"it ({exc}); give a new file or a file of records") from None


def _record_target(out):
    """``(kind, path)`` for ``record --out``: ``"gif"`` for a name ending in ``.gif``, ``"frames"``
    for a folder of numbered PNG frames (a name ending in ``/``, a name without an extension or an
    existing folder); any other name is refused, as is a place that cannot be written."""
    from .arena.outputs import check_output_file, check_output_folder

    forms = ("allowed: --out NAME.gif for an animated GIF, or --out FOLDER/ (or a name without an "
             "extension) for a folder of numbered PNG frames")
    where = f"--out {out}"
    if not out:
        raise ValueError(f"--out {out!r} is not a path; {forms}")
    if out.lower().endswith(".gif"):
        return "gif", check_output_file(out, "--out", "game.gif")
    folder = out.rstrip("/" + os.sep) or out
    is_folder = out.endswith(("/", os.sep)) or not os.path.splitext(os.path.basename(folder))[1]
    if os.path.isdir(folder):
        check_output_folder(folder, where)
        if glob.glob(os.path.join(glob.escape(folder), "frame_*.png")):
            raise ValueError(f"{where}: folder {folder} already holds frame_*.png files (they would be mixed "
                             f"with the new ones); give a new folder or one without frame_*.png files")
        return "frames", folder
    if not is_folder:
        raise ValueError(f"{where}: a {os.path.splitext(folder)[1]!r} name is neither a GIF nor a folder of frames; {forms}")
    if os.path.exists(folder):
        raise ValueError(f"{where}: {folder} is an existing file, not a folder; {forms}")
    check_output_folder(os.path.dirname(folder) or ".", where)
    return "frames", folder


def _add_match_options(p):
    p.add_argument("--players", type=players_arg, default=2, help="2, 3 or 4 (4 = two partnerships; default 2)")
    p.add_argument("--games", type=games_arg, default=100,
                   help=f"games to the target, 1..{MAX_GAMES:,} (rounded up to whole rotations; default 100)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the deals and of every agent, >= 0 (default 0)")
    p.add_argument("--workers", type=workers_arg, default=1, help=f"worker processes, 1..{MAX_WORKERS} (default 1)")
    p.add_argument("--target", type=_target, default=None,
                   help=f"points to win, up to {MAX_TARGET:,} (default: the R3 target)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")


# ------------------------------------------------------------------ eval
def add_eval(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="one spec per side: random, greedy, heuristic, search[:samples=32], champion, ppo:PATH, "
                        "openspiel:ismcts, module:Class")
    _add_match_options(p)
    p.add_argument("--json", metavar="PATH", help="write the results as JSON")
    p.add_argument("--records", metavar="PATH.jsonl", help="write every game as a replayable JSON line")
    p.add_argument("--rating", action="store_true", help="treat --agents as a pool: round robin and Elo ratings")


def run_eval(args) -> int:
    from .arena import format_table, run_match
    from .arena.match import spec_count
    from .arena.outputs import write_output

    if args.rating:
        if args.records is not None:
            raise ValueError("--records is not written with --rating (a round robin keeps no game records); "
                             "drop --records, or run eval without --rating")
        return run_rate(args)
    config = _config(args)
    if len(args.agents) != config.num_sides:
        raise ValueError(
            f"{spec_count(len(args.agents))} for {config.num_players} players; give exactly {config.num_sides} "
            f"({'one per partnership' if config.num_players == 4 else 'one per player'})"
        )
    _check_outputs(args, "json", "records", inputs=args.agents)
    match = run_match(config, args.agents, args.games, seed=args.seed, workers=args.workers,
                      progress=not args.no_progress and sys.stderr.isatty(), records_path=args.records)
    print(format_table(match))
    if args.json:
        write_output(args.json, json.dumps(_with_code(match.to_dict()), indent=2), "--json")
    return 0


def _with_code(data: dict) -> dict:
    """``data`` and the code that produced it (package version, commit), as a benchmark scorecard has."""
    from .arena.benchmark import code_version

    return {**data, "code": code_version()}


# ------------------------------------------------------------------ rate
#: ``rate --method`` values
RATE_METHODS = ("elo", "alpharank", "nash", "all")


def add_rate(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="the pool of agent specs")
    _add_match_options(p)
    p.add_argument("--json", metavar="PATH", help="write the ratings as JSON")
    p.add_argument("--method", choices=RATE_METHODS, default="elo",
                   help="elo (default), alpharank (OpenSpiel's alpha-Rank), nash (Nash averaging) or all three, "
                        "all from the same round robin")


def run_rate(args) -> int:
    from .arena import format_alpharank, format_nash, format_ratings, rate_agents
    from .arena.outputs import write_output
    from .arena.population import alpha_rank, nash_averaging, openspiel_alpharank, scipy_optimize, win_rate_matrix

    method = getattr(args, "method", "elo")  # eval --rating: Elo
    config = _config(args)
    _agents_for(args.agents)  # every spec, before the first of the round robin's matches
    _check_outputs(args, "json", inputs=args.agents)
    if method in ("alpharank", "all"):
        openspiel_alpharank()  # a missing OpenSpiel is refused before the round robin
    if method in ("nash", "all"):
        scipy_optimize()  # and a missing scipy
    rating = rate_agents(config, args.agents, args.games, seed=args.seed, workers=args.workers,
                         progress=not args.no_progress and sys.stderr.isatty())
    tables = [format_ratings(rating)] if method in ("elo", "all") else []
    rates, specs = win_rate_matrix(rating)
    if method in ("alpharank", "all"):
        rating["alpharank"] = alpha_rank(rates, specs)
        tables.append(format_alpharank(rating["alpharank"]))
    if method in ("nash", "all"):
        rating["nash"] = nash_averaging(rates, specs)
        tables.append(format_nash(rating["nash"]))
    print("\n\n".join(tables))
    if args.json:
        write_output(args.json, json.dumps(_with_code(rating), indent=2), "--json")
    return 0


# ------------------------------------------------------------------ benchmark
def add_benchmark(p):
    p.add_argument("spec", metavar="SPEC", help="the agent to score (any agent spec)")
    p.add_argument("--players", type=players_arg, default=2, help="2, 3 or 4 (4 = two partnerships; default 2)")
    p.add_argument("--quick", action="store_true", help="the protocol's quick deal set (a smoke run, not for citing)")
    p.add_argument("--opponents", nargs="+", metavar="SPEC",
                   help="score against these instead of the protocol's ladder (the scorecard says partial)")
    p.add_argument("--workers", type=workers_arg, default=1, help=f"worker processes, 1..{MAX_WORKERS} (default 1)")
    p.add_argument("--json", metavar="PATH", help="write the scorecard as JSON")
    p.add_argument("--markdown", metavar="PATH", help="write the scorecard as markdown")
    p.add_argument("--no-progress", action="store_true", help="no progress lines")


def run_benchmark(args) -> int:
    from .arena.benchmark import format_scorecard, ladder
    from .arena.benchmark import run_benchmark as score
    from .arena.outputs import write_output
    from .arena.ratings import refuse_repeated_specs

    specs = [args.spec, *(args.opponents or ladder(args.players))]
    _agents_for(specs)  # every spec first
    refuse_repeated_specs(args.opponents or (), "--opponents")
    _check_outputs(args, "json", "markdown", inputs=specs)
    log = None if args.no_progress else (lambda text: print(text, file=sys.stderr, flush=True))
    card = score(args.spec, args.players, quick=args.quick, opponents=args.opponents, workers=args.workers,
                 log=log)
    text = format_scorecard(card)
    print(text)
    if args.json:
        write_output(args.json, json.dumps(card, indent=2), "--json")
    if args.markdown:
        write_output(args.markdown, text, "--markdown")
    return 0


def _config(args):
    return RulesConfig(num_players=args.players, target=args.target)


# ------------------------------------------------------------------ play / watch / replay / record
def _add_table_options(p):
    p.add_argument("--players", type=players_arg, default=2, help="2, 3 or 4 (4 = two partnerships; default 2)")
    p.add_argument("--seed", type=seed_arg, default=None,
                   help="seed of the deals and agents, >= 0 (default: fresh each run)")
    p.add_argument("--target", type=_target, default=None,
                   help=f"points to win, up to {MAX_TARGET:,} (default: the R3 target)")
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
    p.add_argument("--seat", type=_seat, default=0, help="your seat (default 0); play goes 0, 1, 2, ...")
    p.add_argument("--partner", metavar="SPEC", help="4 players: your partner's spec (default: the first of --agents)")
    p.add_argument("--record", metavar="PATH.jsonl",
                   help="add the game to this file of replayable records (a new file, or one with games already)")
    _add_table_options(p)


def run_play(args) -> int:
    from .play import make_console, play_seat_specs, play_session

    specs = play_seat_specs(args.players, args.seat, args.agents, args.partner)
    agents = _agents_for(specs)
    _check_record_file(args.record)
    console = make_console(color=False if args.no_color else None)
    seats = ["human" if s is None else s for s in specs]
    return play_session(_config(args), args.seat, agents, _names_for(specs, args.seat), _seed(args), sys.stdin,
                        console, echo=not sys.stdin.isatty(), record_path=args.record, seat_specs=seats)


def add_watch(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC",
                   help="one spec per side (as for eval; with 4 players one per partnership), one per seat, "
                        "or one for every seat")
    p.add_argument("--delay", type=_delay, default=None,
                   help=f"seconds between screens, 0..{MAX_DELAY:g} (default 0.8 on a terminal, 0 otherwise)")
    p.add_argument("--record", metavar="PATH.jsonl",
                   help="add the game to this file of replayable records (a new file, or one with games already)")
    _add_table_options(p)


def run_watch(args) -> int:
    from .play import make_console, watch_seat_specs, watch_session

    specs = watch_seat_specs(args.players, args.agents)
    agents = _agents_for(specs)
    _check_record_file(args.record)
    console = make_console(color=False if args.no_color else None)
    delay = args.delay if args.delay is not None else (0.8 if console.is_terminal else 0.0)
    return watch_session(_config(args), agents, _names_for(specs), _seed(args), console, delay=delay,
                         record_path=args.record, seat_specs=specs)


def add_replay(p):
    p.add_argument("record", metavar="RECORD.jsonl", help="game records (allfives eval --records, play/watch --record)")
    p.add_argument("--game", type=_positive, default=1, help="which game of the file, from 1 (default 1)")
    p.add_argument("--html", metavar="OUT.html",
                   help="write one self-contained HTML file that replays the game in any browser (no server)")
    p.add_argument("--no-color", action="store_true", help="plain text, no colours")


def run_replay(args) -> int:
    from .play import load_record, make_console, replay_session

    if args.html is not None:
        from .arena.outputs import check_output_file

        check_output_file(args.html, "--html", "game.html")
        if not args.html.lower().endswith((".html", ".htm")):  # so a record file is never written over by mistake
            raise ValueError(f"--html {args.html} does not end in .html or .htm; give the page such a name, "
                             "e.g. game.html")
        if os.path.realpath(args.html) == os.path.realpath(args.record):
            raise ValueError(f"--html {args.html} is the record file itself; give the page its own name, "
                             "e.g. game.html")
    record = load_record(args.record, args.game - 1)
    if args.html is not None:
        return _replay_html(record, args)
    console = make_console(color=False if args.no_color else None)
    return replay_session(record, sys.stdin, console, echo=not sys.stdin.isatty())


def _replay_html(record, args):
    from .play.web.pages import replay_file_html
    from .play.web.replays import ReplayTooLong, replay_data
    from .rules.record import read_records

    try:
        data = replay_data(record, args.game, len(read_records(args.record)))
    except ReplayTooLong:  # a valid record, too long for one page: not a failed check
        raise
    except ValueError as exc:
        raise ValueError(f"Record check failed: {exc}") from None
    with open(args.html, "w", encoding="utf-8") as f:
        f.write(replay_file_html(data))
    print(f"{args.html}: game {args.game} of {args.record}, {len(data['hand_starts'])} hand(s), "
          f"{len(data['positions'])} positions; {data['check']} Open it in any browser (no server needed).")
    return 0


# ------------------------------------------------------------------ serve
def _port(text):
    return _whole_in(0, 65535, "a port 0..65535 (0: any free port)")(text)


#: the agents ``allfives serve`` offers when ``--agents`` is not given
SERVE_AGENTS = ("heuristic", "greedy", "random", "search", "champion")


def add_serve(p):
    p.add_argument("--port", type=_port, default=8000, help="the port (default 8000; 0 picks a free one)")
    p.add_argument("--host", type=_host, default="127.0.0.1",
                   help="the address to listen on (default 127.0.0.1: this machine only)")
    p.add_argument("--players", type=players_arg, default=2, help="2, 3 or 4 (4 = two partnerships; default 2)")
    p.add_argument("--agents", nargs="+", default=list(SERVE_AGENTS), metavar="SPEC",
                   help=f"the agents a game may choose, first = default (default: {' '.join(SERVE_AGENTS)}); "
                        "any arena spec, trained ones included (ppo:PATH)")
    p.add_argument("--target", type=_target, default=None,
                   help=f"points to win, up to {MAX_TARGET:,} (default: the R3 target)")
    p.add_argument("--max-games", type=_whole_in(1, 10_000, "1..10,000 games"), default=64,
                   help="games kept at once; the least recently used goes first (default 64)")


def _host(text):
    """``--host``: an address or host name, not empty (an empty one listened on every interface)."""
    if not text or not text.isascii() or any(c.isspace() for c in text):
        raise argparse.ArgumentTypeError(f"{text!r} is not allowed; allowed: an address of this machine, e.g. "
                                         "127.0.0.1 (the default), ::1, or 0.0.0.0 (every interface)")
    return text


def run_serve(args) -> int:
    import socket

    try:
        import uvicorn

        from .play.web.app import LOCAL_HOSTS, create_app
    except ImportError as exc:
        raise ValueError(f"allfives serve needs {exc.name!r}, which is not installed; install the web extra: "
                         'pip install -e ".[web]"') from None
    from .arena.ratings import refuse_repeated_specs

    refuse_repeated_specs(args.agents, "--agents")  # the page's menu would offer it twice
    app = create_app(_config(args), args.agents, capacity=args.max_games, host=args.host)
    family = socket.AF_INET6 if ":" in args.host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((args.host, args.port))
    except OSError as exc:  # the port taken, or a host that is not this machine's
        sock.close()
        raise ValueError(f"cannot listen on --host {args.host} --port {args.port}: {exc.strerror or exc}; give "
                         "another --port (0: any free one) or a --host address of this machine") from None
    sock.listen(128)  # connections wait from now on, so the address printed next is already good
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if family == socket.AF_INET6 else args.host
    print(f"All Fives on http://{shown}:{port}/ ({args.players} players; agents: {', '.join(args.agents)}); "
          "Ctrl-C stops it", flush=True)
    if args.host not in LOCAL_HOSTS:
        print(f"warning: listening on {args.host}: anyone who can reach this address can start games", flush=True)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    server.run(sockets=[sock])
    return 0


def add_record(p):
    p.add_argument("--agents", nargs="+", required=True, metavar="SPEC", help="as for watch")
    p.add_argument("--out", required=True, metavar="PATH",
                   help="NAME.gif for an animated GIF; FOLDER/ (or a name without an extension) for a folder "
                        "of numbered PNG frames (for a video)")
    p.add_argument("--frame-seconds", type=_frame_seconds, default=None,
                   help=f"seconds per GIF frame, {MIN_FRAME_SECONDS:g}..{MAX_FRAME_SECONDS:g} (default "
                        f"{DEFAULT_FRAME_SECONDS:g}; a GIF only)")
    p.add_argument("--players", type=players_arg, default=2, help="2, 3 or 4 (4 = two partnerships; default 2)")
    p.add_argument("--seed", type=seed_arg, default=0, help="seed of the deals and agents, >= 0 (default 0)")
    p.add_argument("--target", type=_target, default=None,
                   help=f"points to win, up to {MAX_TARGET:,} (default: the R3 target)")


def run_record(args) -> int:
    import io

    from .arena.game import AgentError
    from .env.render.image import render_rgb
    from .play import make_console, watch_seat_specs, watch_session

    specs = watch_seat_specs(args.players, args.agents)
    names = _names_for(specs)
    config, agents = _config(args), _agents_for(specs)
    kind, out = _record_target(args.out)
    if kind != "gif" and args.frame_seconds is not None:  # PNG frames have no duration: it would be ignored
        raise ValueError(f"--frame-seconds sets a GIF's frame time, and --out {args.out} writes PNG frames; "
                         "allowed: --out NAME.gif, or no --frame-seconds")
    frame_seconds = DEFAULT_FRAME_SECONDS if args.frame_seconds is None else args.frame_seconds
    frames = []
    try:
        watch_session(config, agents, names, args.seed, make_console(io.StringIO(), color=False),
                      frame_sink=lambda game: frames.append(render_rgb(game, names)))
    except AgentError:  # an agent failed mid-game: the frames up to the failure are kept, then its one line
        try:
            _save_frames(frames, out, kind, frame_seconds, " (the game up to an agent's failure)")
        except OSError as exc:  # the agent's failure stays the error
            print(f"the frames could not be written to {out}: {exc.strerror or exc}")
        raise
    _save_frames(frames, out, kind, frame_seconds)
    return 0


def _save_frames(frames, out, kind, frame_seconds, what=""):
    from .env.render.image import save_animation

    save_animation(frames, out, frame_seconds)
    print(f"{len(frames)} frames of {frames[0].shape[1]}x{frames[0].shape[0]}{what} written to "
          f"{out if kind == 'gif' else os.path.join(out, 'frame_*.png')}")


#: name -> (add options, run, help)
SUBCOMMANDS = {
    "eval": (add_eval, run_eval, "play agents against each other with duplicate deals"),
    "rate": (add_rate, run_rate, "round-robin a pool of agents and print Elo, alpha-Rank or Nash ratings"),
    "benchmark": (add_benchmark, run_benchmark, "score an agent with the allfives-benchmark-v1 protocol"),
    "play": (add_play, run_play, "play a game in the terminal against agents"),
    "watch": (add_watch, run_watch, "watch agents play a game in the terminal"),
    "replay": (add_replay, run_replay,
               "step through a recorded game and check its scores, or write it as an HTML page"),
    "serve": (add_serve, run_serve, "play, watch and replay in a browser (a local web app)"),
    "record": (add_record, run_record, "write a game of agents as an animated GIF or PNG frames"),
}
#: Entry points that add subcommands (the trainer registers ``train``): each gives ``(add options, run, help)``.
PLUGIN_GROUP = "allfives_env.commands"
DISTRIBUTION = "allfives-env"


def plugin_commands() -> dict:
    """Subcommands from installed entry points, loaded only when the parser is built."""
    from importlib.metadata import entry_points

    return {ep.name: ep.load()() for ep in entry_points(group=PLUGIN_GROUP)}


def version_text() -> str:
    """``"allfives-env X.Y.Z"``: the installed distribution's version (the package's own when not installed)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return f"{DISTRIBUTION} {version(DISTRIBUTION)}"
    except PackageNotFoundError:
        from . import __version__

        return f"{DISTRIBUTION} {__version__} (not installed)"


def build_parser():
    parser = OneLineParser(prog="allfives", description="All Fives dominoes: environment, agents and arena")
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)
    sub.required = True
    for name, (add, run, help_text) in {**SUBCOMMANDS, **plugin_commands()}.items():
        p = sub.add_parser(name, help=help_text, description=help_text)
        add(p)
        p.set_defaults(_run=run, _prog=p.prog, _parser=p)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # named by the subcommand whose arguments they are, as its own errors are
        args._parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    try:
        return args._run(args)
    except ValueError as exc:
        sys.stderr.write(f"{args._prog}: error: {exc}\n")
        return AGENT_FAILED if _is_agent_failure(exc) else USAGE_ERROR
    except ModuleNotFoundError as exc:
        extra = EXTRA_OF_MODULE.get((exc.name or "").split(".")[0])
        if extra is None:
            raise  # not an optional dependency: a real error
        sys.stderr.write(f"{args._prog}: error: this needs {exc.name!r}, which is not installed; install it with: "
                         f'pip install -e ".[{extra}]"\n')
        return USAGE_ERROR
    except OSError as exc:  # a file that cannot be read or written: its name and why, on one line
        where = f"{exc.filename}: " if exc.filename else ""
        sys.stderr.write(f"{args._prog}: error: {where}{exc.strerror or exc}\n")
        return USAGE_ERROR
    except KeyboardInterrupt:
        sys.stderr.write(f"{args._prog}: interrupted\n")
        return 130


def _is_agent_failure(exc) -> bool:
    if "allfives_env.arena.game" not in sys.modules:  # no game was played, so no agent failed in one
        return False
    from .arena.game import AgentError

    return isinstance(exc, AgentError)


if __name__ == "__main__":
    sys.exit(main())
