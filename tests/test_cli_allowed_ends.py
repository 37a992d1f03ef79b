"""`allfives` flags accept both ends of the ranges their errors name (issue 23: the one-line error says
what is allowed, so what it calls allowed must be accepted). The existing bad-input tests pin the values
just outside each range; these pin the values on its edges."""

import pytest

from allfives_env.cli import MAX_DELAY, MAX_FRAME_SECONDS, MAX_GAMES, MIN_FRAME_SECONDS, build_parser

AGENTS = ["--agents", "random", "random"]


@pytest.mark.parametrize("argv, dest, value", [
    # "seconds from 0.01 to 600"
    (["record", *AGENTS, "--out", "x.gif", "--frame-seconds", f"{MIN_FRAME_SECONDS:g}"], "frame_seconds",
     MIN_FRAME_SECONDS),
    (["record", *AGENTS, "--out", "x.gif", "--frame-seconds", f"{MAX_FRAME_SECONDS:g}"], "frame_seconds",
     MAX_FRAME_SECONDS),
    # "seconds from 0 to 60"
    (["watch", *AGENTS, "--delay", "0"], "delay", 0.0),
    (["watch", *AGENTS, "--delay", f"{MAX_DELAY:g}"], "delay", MAX_DELAY),
    # "a whole number >= 0"
    (["watch", *AGENTS, "--seed", "0"], "seed", 0),
    (["eval", *AGENTS, "--seed", "0"], "seed", 0),
    # "a positive whole number of games up to 1,000,000"
    (["eval", *AGENTS, "--games", str(MAX_GAMES)], "games", MAX_GAMES),
    (["eval", *AGENTS, "--games", "1"], "games", 1),
    # "a positive whole number of worker processes up to 256"
    (["eval", *AGENTS, "--workers", "256"], "workers", 256),
])
def test_the_ends_of_each_allowed_range_are_accepted(argv, dest, value):
    args = build_parser().parse_args(argv)
    assert getattr(args, dest) == value
