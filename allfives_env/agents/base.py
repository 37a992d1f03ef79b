"""The agent protocol and the spec registry that builds agents from strings.

An agent is any object with two methods::

    reset(seat, config, rng)            # a new game: my seat, the RulesConfig, a numpy Generator
    act(view, legal_actions) -> int     # choose one of legal_actions

The arena calls ``act`` only when the seat has a choice (a single legal
action, e.g. a forced draw, is played for it); everything that happened is
in ``view.events`` anyway.

``view`` is a :class:`~allfives_env.rules.view.PlayerView`: the seat's own
hand and the public history only. Scripted and search agents read nothing
else; learned policies get their observation vector through
``view.observation(encoder)``. All randomness must come from the ``rng``
given to :meth:`reset`, so a seeded arena replays every game exactly.

Specs (the strings the arena and ``allfives eval`` accept):

* ``"name"`` or ``"name:key=val,key=val"`` for a registered agent
  (``random``, ``greedy``, ``heuristic``, ``search``; e.g. ``search:samples=32``);
* ``"ppo:PATH"`` (or ``"name:PATH,key=val"``) for a registered loader that takes a
  path, e.g. a learned policy's checkpoint: register it with
  ``register_agent("ppo", factory, takes_path=True)``;
* ``"module:Class"`` (optionally ``"module:Class:key=val,..."``) for a user's own
  agent class importable from ``module``.

Registering later agents: a module listed in :data:`PLUGIN_MODULES` (by default
``allfives_env.agents.ppo``) is imported on first use when it exists, so the
PPO loader only has to call ``register_agent("ppo", load_fn, takes_path=True)``
at import. The registry is per process; worker processes are forked and
inherit it (with the "spawn" start method, register in an imported module).
"""

import importlib
import os
from dataclasses import dataclass
from typing import Callable, Protocol, runtime_checkable


@runtime_checkable
class Agent(Protocol):
    """What the arena needs from a player."""

    def reset(self, seat: int, config, rng) -> None:
        """Start a new game at ``seat`` under ``config``; keep ``rng`` for all random choices."""

    def act(self, view, legal_actions) -> int:
        """Return one action id from ``legal_actions`` (a non-empty sequence)."""


class BaseAgent:
    """Convenience base: stores seat, config and rng on :meth:`reset`."""

    name = "agent"

    def __init__(self):
        self.seat, self.config, self.rng = 0, None, None

    def reset(self, seat, config, rng):
        self.seat, self.config, self.rng = seat, config, rng

    def act(self, view, legal_actions):  # pragma: no cover - abstract
        raise NotImplementedError


@dataclass(frozen=True)
class AgentEntry:
    factory: Callable
    takes_path: bool = False
    help: str = ""


_REGISTRY = {}


def register_agent(name: str, factory: Callable, takes_path: bool = False, help: str = "") -> None:
    """Make ``name`` a spec. ``factory(**options)`` builds the agent; with
    ``takes_path`` the spec is ``name:PATH[,key=val...]`` and the factory is
    called as ``factory(path, **options)`` after the arena checked PATH exists."""
    _REGISTRY[name] = AgentEntry(factory, takes_path, help)


def registered_agents() -> dict:
    _ensure_builtins()
    return dict(_REGISTRY)


def allowed_specs_text() -> str:
    _ensure_builtins()
    names = [f"{n}:PATH" if e.takes_path else n for n, e in _REGISTRY.items()]
    return ", ".join(names) + ", or module:Class"


def parse_spec(spec: str):
    """Split a spec into ``(name, path, options)``; raises ``ValueError`` naming the problem."""
    _ensure_builtins()
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"empty agent spec; allowed: {allowed_specs_text()}")
    spec = spec.strip()
    head, _, rest = spec.partition(":")
    if head in _PLANNED and head not in _REGISTRY:
        path = rest.split(",")[0].strip()
        if not path:
            raise ValueError(f"agent spec {spec!r} needs a path: {head}:PATH")
        if not os.path.exists(path):
            raise ValueError(f"checkpoint not found: {path!r} (in agent spec {spec!r})")
        raise ValueError(f"agent {head!r} is not available in this install ({_PLANNED[head]}); allowed: {allowed_specs_text()}")
    if head in _REGISTRY:
        path, options = _parse_options(rest, allow_positional=_REGISTRY[head].takes_path, spec=spec)
        if _REGISTRY[head].takes_path and not path:
            raise ValueError(f"agent spec {spec!r} needs a path: {head}:PATH")
        return head, path, options
    if rest:  # module:Class[:options]
        cls_name, _, opt_text = rest.partition(":")
        _, options = _parse_options(opt_text, allow_positional=False, spec=spec)
        return f"{head}:{cls_name}", None, options
    raise ValueError(f"unknown agent spec {spec!r}; allowed: {allowed_specs_text()}")


def make_agent(spec, **defaults):
    """Build an agent from a spec string (see the module docstring), or pass an
    agent object through. ``defaults`` are extra keyword options that the spec's
    own options override."""
    if not isinstance(spec, str):
        if callable(getattr(spec, "act", None)) and callable(getattr(spec, "reset", None)):
            return spec
        raise ValueError(f"{spec!r} is neither an agent spec nor an agent; allowed: {allowed_specs_text()}")
    name, path, options = parse_spec(spec)
    options = {**defaults, **options}
    if name in _REGISTRY:
        entry = _REGISTRY[name]
        try:
            if entry.takes_path:
                if not os.path.exists(path):
                    raise ValueError(f"checkpoint not found: {path!r} (in agent spec {spec!r})")
                return entry.factory(path, **options)
            return entry.factory(**options)
        except TypeError as exc:
            raise ValueError(f"bad options for agent {name!r} in {spec!r}: {exc}") from None
    module_name, _, cls_name = name.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ValueError(
            f"unknown agent spec {spec!r}: cannot import module {module_name!r} ({exc}); "
            f"allowed: {allowed_specs_text()}"
        ) from None
    cls = getattr(module, cls_name, None)
    if cls is None:
        raise ValueError(f"unknown agent spec {spec!r}: module {module_name!r} has no {cls_name!r}")
    try:
        agent = cls(**options)
    except TypeError as exc:
        raise ValueError(f"bad options for agent {name!r} in {spec!r}: {exc}") from None
    if not (callable(getattr(agent, "act", None)) and callable(getattr(agent, "reset", None))):
        raise ValueError(f"{name!r} from spec {spec!r} is not an agent (it needs reset() and act())")
    return agent


def check_spec(spec) -> None:
    """Raise ``ValueError`` now if ``spec`` cannot build an agent (fail fast before a long run)."""
    make_agent(spec)


def _parse_options(text, allow_positional, spec):
    path, options = None, {}
    if not text:
        return path, options
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        key, eq, value = item.partition("=")
        if not eq:
            if allow_positional and path is None:
                path = item
                continue
            raise ValueError(f"cannot read option {item!r} in agent spec {spec!r}; write key=value")
        options[key.strip()] = _literal(value.strip())
    return path, options


def _literal(text):
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    if low in ("none", "null"):
        return None
    for cast in (int, float):
        try:
            return cast(text)
        except ValueError:
            pass
    return text


_BUILTINS_LOADED = False
#: Specs reserved for loaders that register themselves later (see _ensure_builtins).
_PLANNED = {"ppo": "no learned-policy loader is registered yet"}
#: Modules imported on first use so that they can call register_agent (e.g. the PPO loader).
PLUGIN_MODULES = ("allfives_env.agents.ppo",)


def _ensure_builtins():
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    from .greedy import GreedyAgent
    from .heuristic import HeuristicAgent
    from .random_agent import RandomAgent
    from .search import SearchAgent

    for name, cls in (("random", RandomAgent), ("greedy", GreedyAgent), ("heuristic", HeuristicAgent), ("search", SearchAgent)):
        if name not in _REGISTRY:
            register_agent(name, cls, help=(cls.__doc__ or "").strip().splitlines()[0])
    for module in PLUGIN_MODULES:
        try:
            importlib.import_module(module)
        except ModuleNotFoundError as exc:
            if exc.name != module:
                raise
