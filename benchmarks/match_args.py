"""The options every benchmark of duplicate matches shares: player counts, games per match, deal seed, workers."""

from allfives_env.cli import games_arg, seed_arg, workers_arg


def add_match_arguments(parser, seed, workers):
    """``--players``, ``--games`` (at most the arena's limit), ``--seed`` (default ``seed``) and ``--workers``
    (default ``workers``), each refused in one line by argparse when out of range."""
    parser.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=[2, 3, 4])
    parser.add_argument("--games", type=games_arg, default=400, help="games per match (rounded up to whole rotations)")
    parser.add_argument("--seed", type=seed_arg, default=seed, help="the deal seed of every match")
    parser.add_argument("--workers", type=workers_arg, default=workers, help="processes per match")
