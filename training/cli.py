"""The training command: ``python -m training --config configs/ppo_2p.yaml [key=value ...]``.

Also ``allfives train ...`` (the same arguments; the ``allfives`` command finds
this module through the ``allfives_env.commands`` entry point, so the library
never imports the trainer) and ``--resume RUN_DIR`` to continue a run exactly
from its ``latest.pt``.
"""

import argparse
import os
import sys

from allfives_env.agents.ppo.agent import CheckpointError
from allfives_env.cli import OneLineParser

from .config import (
    ConfigError,
    TrainConfig,
    config_value,
    field_docs,
    load_config,
    make_config,
    parse_overrides,
    read_config_file,
)
from .metrics import format_summary

DESCRIPTION = "PPO self-play training for All Fives"


def build_parser(prog="python -m training"):
    p = OneLineParser(prog=prog, description=DESCRIPTION)
    add_arguments_and_keys(p)
    return p


def add_arguments_and_keys(p):
    """The options, and every config key in the help's epilog (``allfives train --help`` as ``python -m
    training --help``)."""
    add_arguments(p)
    defaults = TrainConfig()
    keys = "\n".join(f"  {key}: {text} [default: {_shown(getattr(defaults, key))}]" for key, text in field_docs().items())
    p.epilog = ("config keys (override with key=value; the defaults are a run's without --config, and a config "
                "file sets its own over them):\n" + keys)
    p.formatter_class = argparse.RawDescriptionHelpFormatter


def _shown(value) -> str:
    """A default as an override writes it: ``none`` for None, lists as YAML flow lists."""
    if value is None:
        return "none"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_shown(item) for item in value) + "]"
    return str(value).lower() if isinstance(value, bool) else str(value)


def add_arguments(p):
    p.add_argument("--config", metavar="YAML", type=_path_of("a config file, e.g. configs/ppo_2p.yaml"),
                   help="config file (configs/ppo_2p.yaml, ...)")
    p.add_argument("--resume", metavar="RUN_DIR", type=_path_of("a run folder holding config.yaml and latest.pt"),
                   help="continue the run in RUN_DIR from its latest.pt")
    p.add_argument("--run-dir", metavar="DIR", type=_path_of("a folder for the new run (made if missing)"),
                   help="write the run here instead of runs/<name>_s<seed>_<time>")
    p.add_argument("overrides", nargs="*", metavar="key=value", help="config overrides (before or after the options)")
    p.intermixed = True  # the overrides may come before, between or after the options


def _path_of(allowed):
    """An argparse type: a path that is not empty. An empty one would name the working directory (or read as
    no option at all: ``--resume ""`` would start a new run with the defaults)."""

    def parse(text):
        if not text:
            raise argparse.ArgumentTypeError(f"an empty path is not allowed; allowed: {allowed}")
        return text
    return parse


#: Keys a resume cannot change (an override would be recorded in config.yaml but not take effect), and why.
KEPT_ON_RESUME = {"seed": "its random streams go on from latest.pt",
                  "init_from": "its weights go on from latest.pt",
                  "runs_dir": "it goes on in its own folder",
                  "run_name": "it goes on in its own folder"}


def run(args) -> int:
    """Run from parsed arguments (shared by ``python -m training`` and ``allfives train``)."""
    from .loop import train  # torch: imported only to train, not to build the parser

    if args.resume is not None:
        path = os.path.join(args.resume, "config.yaml")
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{args.resume!r} is not a run folder (no config.yaml)")
        values = read_config_file(path)
        if args.config:
            raise ConfigError("give either --resume RUN_DIR or --config, not both (the run keeps its own config)")
        if args.run_dir is not None:
            raise ConfigError("give either --resume RUN_DIR or --run-dir, not both (a resumed run goes on in "
                              "its own folder)")
        for key, value, text in parse_overrides(args.overrides):
            # compared as the config holds them: init_from=none is init_from=null, run_name=none a name
            if key in KEPT_ON_RESUME and config_value(key, value) != config_value(key, _saved(values, key)):
                raise ConfigError(f"{text}: a resumed run keeps its {key} ({KEPT_ON_RESUME[key]}); allowed: "
                                  "other keys, or a new run")
            values[key] = value
        summary = train(make_config(values), args.resume, resume=True)
    else:
        cfg = load_config(args.config, args.overrides)
        if args.config is None:
            sys.stderr.write(f"no --config: training with the defaults ({describe(cfg)}); "
                             "configs/ppo_2p.yaml is the shipped 2-player setting, --help lists every key\n")
        summary = train(cfg, args.run_dir)
    print(format_summary(summary))
    return 0


def _saved(values, key):
    """A run's own value of ``key``: its config.yaml's, or the default where that file predates the key."""
    return values[key] if key in values else getattr(TrainConfig(), key)


def describe(cfg) -> str:
    """What a config runs, in a few words."""
    budget = f"{cfg.total_timesteps:,} decisions"
    if cfg.max_minutes:
        budget += f" or {cfg.max_minutes:g} minutes"
    return f"{cfg.num_players} players, up to {budget}, {cfg.features} features, hidden {cfg.hidden_sizes}"


def main(argv=None, prog="python -m training") -> int:
    args = build_parser(prog).parse_args(argv)
    try:
        return run(args)
    except (ConfigError, CheckpointError, FileNotFoundError) as exc:
        sys.stderr.write(f"{prog}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        return 130


def command():
    """The ``allfives train`` subcommand for ``allfives_env.cli``: ``(add_arguments_and_keys, run, help)``;
    ``run`` raises ``ConfigError`` / ``CheckpointError`` (both ``ValueError``) on bad input."""
    return add_arguments_and_keys, run, DESCRIPTION + " (configs/*.yaml, key=value overrides; --help lists the keys)"
