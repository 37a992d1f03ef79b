"""Agent specs: the strings the arena, ``allfives eval`` and training accept.

* ``"name"`` or ``"name:key=val,key=val"`` for a named agent (``random``,
  ``greedy``, ``heuristic``, ``search``, ``champion``; e.g. ``search:samples=32``);
* ``"ppo:PATH"`` (or ``"name:PATH,key=val"``) for an agent that loads a file;
* ``"openspiel:BOT"`` (e.g. ``openspiel:ismcts,simulations=50``) for an OpenSpiel
  bot by name (needs the ``openspiel`` extra);
* ``"module:Class"`` (optionally ``"module:Class:key=val,..."``) for a user's own
  agent class importable from ``module``.

Option values are read as numbers, ``none``, or booleans (``true``/``false``,
``yes``/``no``); anything else stays a string, and each agent
checks its own options. An unknown option names the agent's options.

The built-in agents are named here by module path and imported on first use
(so naming ``greedy`` never imports torch). Agents of higher layers and other
packages plug in through the entry point group :data:`AGENT_PLUGINS`, each an
:class:`AgentPlugin` (``openspiel``: the integrations layer's, which the agents
layer never imports itself); :func:`register_agent` adds others at run time.
The registry is per process; worker processes are forked and inherit it (with
the "spawn" start method, register in an imported module).
"""

import functools
import importlib
import importlib.util
import inspect
import os
import re
import sys
import sysconfig
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Callable


@dataclass(frozen=True)
class AgentEntry:
    """How to build one named agent: ``factory(**options)`` or, with ``takes_path``, ``factory(path, **options)``;
    ``argument`` labels a positional argument that is not a path (``"BOT"``: ``factory(name, **options)``)."""

    factory: Callable
    takes_path: bool = False
    help: str = ""
    argument: str = None

    @property
    def positional(self):
        """The label of the spec's positional argument (``"PATH"``, ``"BOT"``), or None."""
        return "PATH" if self.takes_path else self.argument


@dataclass(frozen=True)
class AgentPlugin:
    """A named agent's class, imported when the name is first built: ``module`` and ``cls``; ``argument``
    None, ``"PATH"`` (a file that must exist) or another label such as ``"BOT"`` (a name the agent checks
    itself), passed to the class first; ``extra``: the pip extra that installs what the module imports,
    named in the error when it is missing."""

    module: str
    cls: str
    argument: str = None
    extra: str = None


BUILTIN_AGENTS = {
    "random": AgentPlugin("allfives_env.agents.random_agent", "RandomAgent"),
    "greedy": AgentPlugin("allfives_env.agents.greedy", "GreedyAgent"),
    "heuristic": AgentPlugin("allfives_env.agents.heuristic", "HeuristicAgent"),
    "search": AgentPlugin("allfives_env.agents.search", "SearchAgent"),
    "champion": AgentPlugin("allfives_env.agents.champion", "ChampionAgent"),
    "ppo": AgentPlugin("allfives_env.agents.ppo.agent", "PPOAgent", "PATH"),
}
#: The entry point group whose entries (``name = "module:ATTRIBUTE"``, an :class:`AgentPlugin`) add named
#: agents; a built-in name wins.
AGENT_PLUGINS = "allfives_env.agents"
_REGISTERED = {}
_TRUE_WORDS, _FALSE_WORDS = ("true", "yes"), ("false", "no")
_LATER_OPTION = re.compile(r":\s*[A-Za-z_]\w*\s*=")  # a value that holds ":key=": a second option after a ':'


def register_agent(name: str, factory: Callable, takes_path: bool = False, help: str = "") -> None:
    """Make ``name`` a spec. ``factory(**options)`` builds the agent; with
    ``takes_path`` the spec is ``name:PATH[,key=val...]`` and the factory is
    called as ``factory(path, **options)`` after the path was checked to exist."""
    _REGISTERED[name] = AgentEntry(factory, takes_path, help)


@functools.cache
def plugin_points() -> dict:
    """``{name: EntryPoint}`` of the installed entry points of :data:`AGENT_PLUGINS`, the first of a name
    (package metadata only: nothing is imported; read once per process, as it changes only with what is
    installed)."""
    from importlib.metadata import entry_points

    points = {}
    for point in entry_points(group=AGENT_PLUGINS):
        points.setdefault(point.name, point)
    return points


@functools.cache
def _loaded_plugin(name) -> AgentPlugin:
    """The :class:`AgentPlugin` of the entry point ``name``, loaded when a spec first names it; a plugin
    that cannot be loaded fails those specs alone, in one line."""
    point = plugin_points()[name]
    try:
        plugin = point.load()
    except Exception as exc:  # a plugin is another package's code: whatever it raises is its failure
        raise ValueError(f"agent {name!r}: its plugin ({point.value!r}, entry point group {AGENT_PLUGINS!r}) "
                         f"cannot be loaded ({describe_failure(exc, where=False)}); reinstall or remove the "
                         "package that installs it") from None
    if not isinstance(plugin, AgentPlugin):
        raise ValueError(f"agent {name!r}: its plugin ({point.value!r}, entry point group {AGENT_PLUGINS!r}) is "
                         f"a {type(plugin).__name__}, not an AgentPlugin")
    return plugin


def _plugin(name):
    """The :class:`AgentPlugin` of a built-in or plugged-in ``name`` (a built-in name wins)."""
    return BUILTIN_AGENTS[name] if name in BUILTIN_AGENTS else _loaded_plugin(name)


def _is_named(name) -> bool:
    return name in _REGISTERED or name in BUILTIN_AGENTS or name in plugin_points()


def _entry(name) -> AgentEntry:
    if name in _REGISTERED:
        return _REGISTERED[name]
    plugin = _plugin(name)
    try:
        cls = getattr(importlib.import_module(plugin.module), plugin.cls)
    except ImportError as exc:
        if plugin.extra is None or (exc.name or "allfives_env").startswith("allfives_env"):
            raise  # not a missing extra: a real error inside the package
        raise ValueError(f"agent {name!r} needs {exc.name!r}, which is not installed; "
                         f'install it with: pip install -e ".[{plugin.extra}]"') from None
    takes_path = plugin.argument == "PATH"
    return AgentEntry(cls, takes_path, (cls.__doc__ or "").strip().splitlines()[0],
                      None if takes_path else plugin.argument)


def _names() -> list:
    named = [*BUILTIN_AGENTS, *(name for name in plugin_points() if name not in BUILTIN_AGENTS)]
    return named + [n for n in _REGISTERED if n not in named]


def registered_agents() -> dict:
    """``{name: AgentEntry}`` of every named agent (imported now; a plugged-in one that cannot be, such as
    ``openspiel`` without its extra, is left out)."""
    entries = {}
    for name in _names():
        try:
            entries[name] = _entry(name)
        except ValueError:
            if name in _REGISTERED or name in BUILTIN_AGENTS:
                raise
    return entries


def allowed_specs_text() -> str:
    labels = {n: _positional(n) for n in _names()}
    return ", ".join(f"{n}:{label}" if label else n for n, label in labels.items()) + ", or module:Class"


def _positional(name):
    """The label of ``name``'s positional argument ("PATH", "BOT") or None, without importing its class
    (a plugin that cannot be loaded is listed by its name alone)."""
    if name in _REGISTERED:
        return _REGISTERED[name].positional
    try:
        return _plugin(name).argument
    except ValueError:
        return None


def parse_spec(spec: str):
    """Split a spec into ``(name, path, options)``; raises ``ValueError`` naming the problem."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty agent spec; allowed: {allowed_specs_text()}")
    if spec != spec.strip():  # the arena names an agent by its spec: ' greedy' would be a second greedy
        raise ValueError(f"agent spec {spec!r} has spaces around it; write {spec.strip()!r}")
    if spec.endswith(":"):
        raise ValueError(f"agent spec {spec!r} ends with ':'; write {spec.rstrip(':')!r}, or options after the ':' "
                         "as key=value")
    head, _, rest = spec.partition(":")
    if _is_named(head):
        label = _positional(head)
        path, options = _parse_options(rest, allow_positional=label is not None, spec=spec)
        if label and not path:
            what = "a path" if label == "PATH" else f"a {label.lower()} name"
            raise ValueError(f"agent spec {spec!r} needs {what}: {head}:{label}")
        return head, path, options
    if rest:  # module:Class[:options]
        cls_name, _, opt_text = rest.partition(":")
        if not head or not cls_name:
            raise ValueError(f"agent spec {spec!r} needs a module and a class: module:Class[:options], e.g. "
                             "my_agents:MyAgent")
        _, options = _parse_options(opt_text, allow_positional=False, spec=spec)
        return f"{head}:{cls_name}", None, options
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {allowed_specs_text()}")


def make_agent(spec, **defaults):
    """Build an agent from a spec string (see the module docstring), or pass an
    agent object through. ``defaults`` are extra keyword options that the spec's
    own options override."""
    if not isinstance(spec, str):
        if _is_agent(spec):
            return spec
        raise ValueError(f"{spec!r} is neither an agent spec nor an agent; allowed: {allowed_specs_text()}")
    name, path, options = parse_spec(spec)
    if _is_named(name):
        entry = _entry(name)
        _refuse_none_words(entry.factory, options, spec)
        options = {**defaults, **options}
        _check_options(name, entry.factory, options, spec, skip=1 if entry.positional else 0)
        if not entry.takes_path:  # no argument, or a name such as "BOT" that the agent checks itself
            return _built(spec, entry.factory, *([] if entry.argument is None else [path]), **options)
        found = resolve_policy_path(path)
        if not os.path.exists(found):
            raise ValueError(f"checkpoint not found: {path!r} (in agent spec {spec!r}); allowed: a policy file, "
                             "e.g. a run's policy.pt or a shipped checkpoints/ppo_2p.pt, ppo_3p.pt, ppo_4p.pt")
        if os.path.isdir(found):
            raise ValueError(f"{path!r} is a folder, not a checkpoint (in agent spec {spec!r}); give a .pt file "
                             "such as checkpoints/ppo_2p.pt")
        return _built(spec, entry.factory, path, **options)
    agent = _user_class(name, spec, {**defaults, **options})
    if not _is_agent(agent):
        raise ValueError(f"{name!r} from spec {spec!r} is not an agent (it needs reset() and act())")
    return agent


def _built(spec, factory, *args, **options):
    """``factory(*args, **options)``; an option the agent refuses is reported with the spec it came from."""
    try:
        return factory(*args, **options)
    except ValueError as exc:
        if spec in str(exc):
            raise
        raise type(exc)(f"{exc} (in agent spec {spec!r})") from None


def check_spec(spec) -> None:
    """Raise ``ValueError`` now if ``spec`` cannot build an agent (fail fast before a long run)."""
    make_agent(spec)


def _is_agent(obj) -> bool:
    return callable(getattr(obj, "act", None)) and callable(getattr(obj, "reset", None))


def _user_class(name, spec, options):
    """An instance of ``module:Class`` built with ``options``."""
    module_name, _, cls_name = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        if not _is_missing(exc, module_name):  # the module is there; an import inside it failed
            raise ValueError(f"agent spec {spec!r}: importing {module_name!r} failed: {describe_failure(exc)}") \
                from exc
        raise ValueError(f"unknown agent spec {spec!r}: cannot import module {module_name!r} ({exc}){_path_hint(exc)}"
                         f"{_plugin_hint()}; allowed: {allowed_specs_text()}") from None
    except Exception as exc:  # the module's own code failed (a SyntaxError, an error at import time)
        raise ValueError(f"agent spec {spec!r}: importing {module_name!r} failed: {describe_failure(exc)}") from exc
    cls = getattr(module, cls_name, None)
    if not inspect.isclass(cls):
        what = "has no" if cls is None else "has no class named"
        raise ValueError(f"unknown agent spec {spec!r}: module {module_name!r} {what} {cls_name!r} "
                         "(module:Class names an agent class)")
    _check_options(name, cls, options, spec)
    try:
        return cls(**options)
    except Exception as exc:  # a required argument not given, an option value the class refuses, ...
        raise ValueError(f"agent spec {spec!r}: {cls_name}(...) failed: {describe_failure(exc)}") from exc


def _is_missing(exc, module_name) -> bool:
    """Whether ``exc`` says that ``module_name`` (or a package above it) does not exist, rather than
    that something the module imports is missing."""
    missing = getattr(exc, "name", None)
    parts = module_name.split(".")
    return isinstance(exc, ModuleNotFoundError) and missing in {".".join(parts[:i]) for i in range(1, len(parts) + 1)}


def _plugin_hint() -> str:
    """Why a plugged-in name may be missing: an install without this package's entry points (made before
    they were added) lacks the plugged-in agents."""
    if plugin_points():
        return ""
    return ("; no agent plugins are installed (openspiel:BOT is one): re-run pip install -e . in the "
            "source checkout")


def _path_hint(exc) -> str:
    """Where a user's module was looked for, when it is in the working folder but that is not searched
    (the ``allfives`` command, unlike ``python -m``, does not put it on the path)."""
    top = (getattr(exc, "name", None) or "").split(".")[0]
    here = os.getcwd()
    if not top or here in sys.path or "" in sys.path:
        return ""
    if os.path.exists(os.path.join(here, top)) or os.path.exists(os.path.join(here, f"{top}.py")):
        return (f"; {top!r} is in the working folder, which this command does not search: run with "
                "PYTHONPATH=. or install your package")
    return ""


def describe_failure(exc: BaseException, where: bool = True) -> str:
    """``"KeyError: 'x' (at mybot.py:12)"``: an exception on one line and, with ``where``, the innermost
    place in the caller's own code (outside the standard library and installed packages) it passed."""
    text = f"{type(exc).__name__}: {' '.join(str(exc).split())}"
    place = failure_place(exc) if where else ""
    return f"{text} (at {place})" if place else text


def _library_folders():
    paths = sysconfig.get_paths()
    return {os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths}


def _is_library(filename) -> bool:
    """Whether ``filename`` is in the standard library or an installed package (whole path components)."""
    path = os.path.realpath(filename)
    return any(path == folder or path.startswith(folder + os.sep) for folder in _library_folders())


def failure_place(exc: BaseException) -> str:
    """``"path.py:12"``: see :func:`describe_failure`; empty when the exception has no traceback or was
    raised by the call that caught it (a call with the wrong arguments: no line of the callee to show)."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f"{exc.filename}:{exc.lineno}"
    if exc.__traceback__ is None or exc.__traceback__.tb_next is None:
        return ""
    frames = traceback.extract_tb(exc.__traceback__)
    own = [f for f in frames if not _is_library(f.filename)]
    chosen = own[-1] if own else (frames[-1] if frames else None)
    return f"{chosen.filename}:{chosen.lineno}" if chosen else ""


def _refuse_none_words(factory, options, spec):
    """Refuse ``key=none`` in a spec where the agent's ``spec_refuses_none`` names the key: its None means the
    default (``champion:read=none`` read the partner with 4 players), which ``none`` does not say."""
    for key, allowed in getattr(factory, "spec_refuses_none", {}).items():
        if key in options and options[key] is None:
            raise ValueError(f"{key}=none is not allowed; allowed: {allowed}, or no {key} for its default (in "
                             f"agent spec {spec!r})")


def _check_options(name, factory, options, spec, skip=0):
    """Refuse an option the agent does not take, listing those it does (before building it)."""
    try:
        params = list(inspect.signature(factory).parameters.values())[skip:]
    except (TypeError, ValueError):  # pragma: no cover - a builtin without a signature
        return
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    allowed = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        listed = ", ".join(allowed) if allowed else "none"
        raise ValueError(f"agent {name!r} has no option {', '.join(map(repr, unknown))} (in spec {spec!r}); "
                         f"its options: {listed}")


def _parse_options(text, allow_positional, spec):
    path, options = None, {}
    if not text:
        return path, options
    for item in text.split(","):
        item = item.strip()
        if not item:  # as a spec ending in ':': the arena names agents by their spec, and this one reads as another
            raise ValueError(f"agent spec {spec!r} has an empty option (',,' or a ',' at an end); write its "
                             "options as key=value separated by single ','")
        key, eq, value = item.partition("=")
        if eq and (":" in key or _LATER_OPTION.search(value)):  # ppo:PATH:infer=off, Class:a=1:b=2
            raise ValueError(f"cannot read {item!r} in agent spec {spec!r}: options follow a ',', not a ':' "
                             "(e.g. ppo:PATH,infer=off or module:Class:a=1,b=2)")
        if not eq:
            if allow_positional and path is None:
                path = item
                continue
            raise ValueError(f"cannot read option {item!r} in agent spec {spec!r}; write key=value")
        if key.strip() in options:
            raise ValueError(f"option {key.strip()!r} is given twice in agent spec {spec!r}; give each option once")
        options[key.strip()] = _literal(value.strip())
    return path, options


def _literal(text):
    low = text.lower()
    if low in _TRUE_WORDS or low in _FALSE_WORDS:
        return low in _TRUE_WORDS
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


#: The package folder: the shipped files (``checkpoints/``) live in it, so a wheel carries them; a source
#: checkout's root ``checkpoints`` links to it.
_PACKAGE = Path(__file__).resolve().parents[1]


def spec_files(spec) -> list:
    """The files an agent spec reads, as the agents find them: its path (``ppo:PATH``), any option
    value that names an existing file (``champion:value=PATH``) and a ``module:Class``'s module source. An
    output path must not be one of them (writing results there would destroy the agent). A spec that
    does not parse reads none."""
    try:
        name, path, options = parse_spec(spec)
    except ValueError:
        return []
    named = [resolve_policy_path(text) for text in (path, *options.values()) if isinstance(text, str) and text]
    if ":" in name:  # module:Class
        named.append(module_source(name.partition(":")[0]))
    return [found for found in named if found and os.path.isfile(found)]


def module_source(module):
    """The source file of an importable ``module`` (importing at most its parent packages), or None."""
    try:
        found = importlib.util.find_spec(module)
    except (ImportError, ValueError):
        return None
    return found.origin if found is not None and found.has_location else None


def unnamed_files(spec, num_players) -> dict:
    """``{name: path}`` of the files an agent of ``spec`` reads with ``num_players`` players without the
    spec naming them (the agent class's ``unnamed_files``: the champion's default value file)."""
    name, _, options = parse_spec(spec)
    if not _is_named(name):
        return {}
    reads = getattr(_entry(name).factory, "unnamed_files", None)
    return reads(num_players, options) if reads is not None else {}


def shipped_file(path) -> str:
    """Where the package keeps the shipped ``path`` (relative, e.g. ``checkpoints/ppo_2p.pt``), whether or
    not such a file exists; the working directory plays no part."""
    return str(_PACKAGE / path)


def resolve_policy_path(path) -> str:
    """``path`` as given when it exists, else its shipped copy (:func:`shipped_file`): so the shipped
    files, ``checkpoints/ppo_2p.pt`` and the rest, are found from any directory, installed or not."""
    if os.path.isfile(path) or os.path.isabs(path):
        return path
    shipped = shipped_file(path)
    return shipped if os.path.isfile(shipped) else path
