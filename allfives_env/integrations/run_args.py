"""Checks of an example's or a benchmark's arguments, made before any training or play so no result is
lost at the end.

The scripts in ``examples/`` and ``benchmarks/`` run for minutes and write their numbers at the
end; a count that makes no sense, an agent spec that cannot be built or an
output that cannot be written is refused first, in one line.
"""

import argparse
import copy
import math
import os

from ..agents.registry import check_spec
from ..arena.outputs import check_output_folder, check_outputs


class ScriptHelp(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    """``--help`` of the example and benchmark scripts: the description's own line breaks, and each
    option's default where it has one worth showing (not None, not a flag's False), also for an option
    without help text."""

    def _format_action(self, action):
        if action.help is None and action.option_strings and _shows_default(action):
            action = copy.copy(action)
            action.help = "(default: %(default)s)"
        return super()._format_action(action)

    def _get_help_string(self, action):
        if not _shows_default(action) or "(default" in (action.help or ""):  # or it says it in its own words
            return action.help
        return super()._get_help_string(action)


def _shows_default(action) -> bool:
    return (action.default not in (None, argparse.SUPPRESS) and not isinstance(action.default, bool)
            and not action.required)


#: The bounds of a speed benchmark's timed runs (``at_least`` and ``at_most`` of :func:`check_run_args`):
#: a shorter run measures the clock, not the code; longer ones or more repeats would run for days.
TIMED_RUNS_AT_LEAST = {"seconds": 0.01}
TIMED_RUNS_AT_MOST = {"seconds": 3600, "repeats": 1000}


def image_suffixes() -> tuple:
    """The file suffixes matplotlib writes pictures as here (``.png``, ``.pdf``, ``.svg``, ``.jpg`` ...)."""
    from matplotlib.figure import Figure

    return tuple(f".{suffix}" for suffix in Figure().canvas.get_supported_filetypes())


def _values(value) -> list:
    """An option's values: none for an option not given, each of a list (``nargs``), else the one."""
    if value is None:
        return []
    return list(value) if isinstance(value, (list, tuple)) else [value]


def _option(name: str) -> str:
    return "--" + name.replace("_", "-")


def _check_finite(name, value):
    if not math.isfinite(value):  # an endless budget or count: the run would never end
        raise ValueError(f"{_option(name)} must be a finite number, got {value}")


def check_run_args(args, positive=(), at_least_zero=(), seeds=(), specs=(), outputs=(), images=(), new_folders=(),
                   inputs=(), at_least=(), at_most=(), players=None) -> None:
    """A ``ValueError`` naming the first bad value among ``args``' attributes: ``positive`` numbers (> 0)
    and ``at_least_zero`` numbers (each value, for a list option; both finite), ``at_least`` and ``at_most``
    (``{name: bound}``: a timed run too short to measure; a count that would exhaust the machine or run
    for days), ``seeds`` (>= 0), agent
    ``specs`` (a spec or a list of them; with ``players``, each built and seated for a game of that many
    players), output files (``outputs``, and ``images``: plots, one of :func:`image_suffixes`; all
    distinct, none a file that the ``specs``, the further specs ``inputs`` or the package's agents
    read) and folders a library will create (``new_folders``: their parent must be writable). ``None``
    (an option not given) passes."""
    for name in positive:
        for value in _values(getattr(args, name)):
            if not value > 0:
                raise ValueError(f"{_option(name)} must be positive, got {value}")
            _check_finite(name, value)
    for name in at_least_zero:
        for value in _values(getattr(args, name)):
            if not value >= 0:
                raise ValueError(f"{_option(name)} must be at least 0 (0: none), got {value}")
            _check_finite(name, value)
    for name, minimum in dict(at_least).items():
        for value in _values(getattr(args, name)):
            if value < minimum:
                raise ValueError(f"{_option(name)} {value} is not allowed; allowed: at least {minimum:,}")
    for name, maximum in dict(at_most).items():
        for value in _values(getattr(args, name)):
            if value > maximum:
                raise ValueError(f"{_option(name)} {value} is not allowed; allowed: at most {maximum:,}")
    for name in seeds:
        value = getattr(args, name)
        if value is not None and not value >= 0:
            raise ValueError(f"{_option(name)} {value} is not allowed; allowed: a whole number >= 0")
    named = []
    for name in specs:
        value = getattr(args, name)
        named += [value] if isinstance(value, str) else value or ()
    for spec in named:
        check_spec(spec)
    if players is not None and named:  # before any training, not at its end
        from ..arena.match import check_agents
        from ..rules.config import RulesConfig

        check_agents(RulesConfig(num_players=players), named)
    read = [*inputs, *named]
    for name in images:
        path = getattr(args, name)
        if path is not None and not str(path).lower().endswith(image_suffixes()):
            raise ValueError(f"{_option(name)} {path}: a picture is written as {', '.join(image_suffixes())}; "
                             "give a file name with one of them")
    check_outputs([(_option(name), getattr(args, name), "results.png" if name in images else "results.json")
                   for name in (*outputs, *images)], read)
    for name in new_folders:
        folder = getattr(args, name)
        if folder is not None:
            if os.path.exists(folder) and not os.path.isdir(folder):  # the library fails on it after the work
                raise ValueError(f"{_option(name)} {folder} is a file, not a folder; give a folder's path")
            check_output_folder(os.path.dirname(os.path.abspath(folder)), f"{_option(name)} {folder}")
