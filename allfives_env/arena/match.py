"""Run a match: play every rotation of every deal, inline or in worker processes.

The schedule is in :mod:`~allfives_env.arena.schedule`, the statistics in
:mod:`~allfives_env.arena.stats`.
"""

import copy
import pickle
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ..agents.registry import describe_failure, make_agent
from ..env.options import check_count, check_seed
from ..rules.config import RulesConfig
from ..rules.game import Game
from ..rules.record import write_records
from ..rules.view import player_view
from .game import AgentError, is_builtin_agent, play_game, seat_agent
from .outputs import check_not_an_input, check_output_file
from .schedule import MAX_GAMES, MAX_WORKERS, agent_seeds, deal_seed, num_deals, rotations, seat_agents
from .stats import GameResult, MatchResult


def run_match(config: RulesConfig, specs, games: int, seed: int = 0, workers: int = 1,
              progress: bool = False, records_path=None, labels=None) -> MatchResult:
    """Play ``games`` games (rounded up to whole rotations) between one spec per side.

    ``specs`` are spec strings (see :mod:`allfives_env.agents.registry`) or agent
    objects (with ``workers > 1``, ones that pickle). A spec builds one agent per
    seat; an object plays its first seat of a game itself and any other (a
    4-player partnership, the same object given twice) as a deep copy, so every
    seat has its own state and generator. Results do not depend on ``workers``;
    the result and the records name each spec by :func:`agent_labels` (or by
    ``labels``, e.g. a rating pool's). An agent that fails in a game is an
    :class:`~allfives_env.arena.game.AgentError` naming it, its seat, the deal
    and the rotation.
    ``records_path``: write every game's record there (JSONL, see
    :mod:`allfives_env.rules.record`)."""
    _check_labels(labels, specs)
    _check_match(config, specs, games, workers)
    check_seed(seed, allow_none=False)  # the deals come from it
    if records_path is not None:
        check_output_file(records_path, "records_path", "games.jsonl")  # before the games, not after them
        check_not_an_input(records_path, "records_path", specs)
    record = records_path is not None
    labels = agent_labels(specs) if labels is None else list(labels)
    tasks = [(config.to_dict(), list(specs), labels, seed, d, record)
             for d in range(num_deals(games, config.num_sides))]
    result = MatchResult(config, labels, seed)
    bar = _progress_bar(len(tasks) * config.num_sides, progress)
    try:
        for deal_games in _play_deals(tasks, workers):
            result.games.extend(deal_games)
            bar.update(len(deal_games))
    finally:
        bar.close()
    if record:
        write_records(records_path, (game.record for game in result.games))
    return result


def _check_labels(labels, specs):
    if labels is not None and not (isinstance(labels, (list, tuple)) and isinstance(specs, (list, tuple))
                                   and len(labels) == len(specs) and all(isinstance(x, str) for x in labels)):
        raise ValueError(f"labels={labels!r} is not allowed; allowed: None, or one name (a string) per spec")
    for j, label in enumerate(labels or ()):
        i = labels.index(label)  # the first spec with this label
        if not _same_agent(specs[i], specs[j]):  # the results would have two rows no one could tell apart
            raise ValueError(f"labels={labels!r} is not allowed: {labels[i]!r} names two different agents (specs "
                             f"{i} and {j}); allowed: one name per agent (the same name only for the same spec)")


def _same_agent(one, other) -> bool:
    """The same spec string, or the same agent object (a self-match)."""
    return one == other if isinstance(one, str) and isinstance(other, str) else one is other


def spec_count(n: int) -> str:
    """``"1 agent spec"``, ``"3 agent specs"``: how many specs were given, for error messages."""
    return f"{n} agent spec{'' if n == 1 else 's'}"


def _check_match(config, specs, games, workers):
    """Fail fast on a bad config, spec count, game count, worker count or spec, before any worker starts."""
    if not isinstance(config, RulesConfig):
        raise ValueError(f"config={config!r} is not allowed; allowed: a RulesConfig, e.g. RulesConfig(num_players=2)")
    if not isinstance(specs, (list, tuple)):
        raise ValueError(f"specs={specs!r} is not allowed; allowed: a list of {config.num_sides} agent specs or "
                         f"agents (one per {'partnership' if config.num_players == 4 else 'player'})")
    check_count("games", games, maximum=MAX_GAMES)
    check_count("workers", workers, maximum=MAX_WORKERS)
    objects = [spec for spec in specs if not isinstance(spec, str)]
    if workers > 1:
        _check_picklable(objects, workers)
    if config.num_players == 4 or len({id(obj) for obj in objects}) < len(objects):
        _check_copyable(objects)
    if len(specs) != config.num_sides:
        raise ValueError(
            f"{spec_count(len(specs))} for {config.num_players} players; give {config.num_sides} "
            f"(one per {'partnership' if config.num_players == 4 else 'player'})"
        )
    check_agents(config, specs)


def check_agents(config: RulesConfig, specs) -> None:
    """A ``ValueError`` now, before any game, for a spec that cannot be built or cannot sit at a game of
    ``config`` (e.g. a policy trained for another player count): each spec is built and seated once. Agent
    objects are only checked to be agents (seating one would change its state). A shipped agent whose first
    decision compiles kernels also makes one on a throwaway deal (:func:`_warm_up`)."""
    for spec in specs:
        agent = make_agent(spec)
        if not isinstance(spec, str):
            continue
        try:
            seat_agent(agent, 0, config, np.random.default_rng(0))
        except AgentError as exc:  # before any game: a spec that cannot play here, as any bad spec
            failure = exc.__cause__
            if isinstance(failure, ValueError) and is_builtin_agent(agent):
                raise failure from None  # a shipped agent's own words name it
            if isinstance(failure, ValueError) and spec in str(failure):
                raise ValueError(" ".join(str(failure).split())) from None
            raise ValueError(f"agent {spec!r} {exc.detail}" + (f" (at {exc.place})" if exc.place else "")) from None
        if is_builtin_agent(agent) and agent.compiles_on_first_call:
            _warm_up(agent, config)


def _warm_up(agent, config):
    """One decision of ``agent`` (a throwaway one) at the lead of a throwaway deal: the first call of its
    compiled kernels compiles them, or loads them from numba's cache (seconds in a fresh checkout), and
    that is then not counted as CPU time of the match's games played here or in forked workers (workers
    started with "spawn" load the kernels again, from the cache)."""
    game = Game(config)
    game.start_game(np.random.default_rng(0))
    seat_agent(agent, game.to_move, config, np.random.default_rng(0))
    view = player_view(game, game.to_move)
    agent.act(view, view.legal_actions)


def _check_picklable(agents, workers):
    """Agent objects travel to the worker processes by pickle: one that cannot is refused now, not at the
    first deal."""
    for agent in agents:
        try:
            pickle.dumps(agent)
        except Exception as exc:  # pickle raises PicklingError, AttributeError, TypeError... by object
            raise ValueError(f"workers={workers} sends the agents to worker processes, and {_object_label(agent)!r} "
                             f"cannot be pickled ({type(exc).__name__}); allowed: a spec string, or workers=1") from None


def _check_copyable(agents):
    """An object that plays two seats of a game plays the second as a deep copy: one that cannot be
    copied is refused now."""
    for agent in agents:
        try:
            copy.deepcopy(agent)
        except Exception as exc:
            raise ValueError(f"{_object_label(agent)!r} plays more than one seat (a partnership, or given twice), so "
                             f"its other seats play a deep copy of it, and it cannot be copied "
                             f"({describe_failure(exc, where=False)}); allowed: a spec string (one agent per seat), "
                             "or a copyable agent") from None


def agent_labels(specs) -> list:
    """How results and records name each of ``specs``: a spec string as it is; an agent object by its
    own ``name`` (set on it or its class, not inherited; not ``"agent"``), else its ``repr`` when its class
    overrides ``object.__repr__``, else ``module:Class``: never a memory address, so a run names it the
    same way twice. A label an earlier entry has gets `` #2`` (`` #3``, ...) after it, unless both are the
    same spec string (the same agent, as in a self-match)."""
    labels = []
    for spec in specs:
        base = spec if isinstance(spec, str) else _object_label(spec)
        label, number = base, 2
        holders = [specs[i] for i, taken in enumerate(labels) if taken == base]
        same_spec = isinstance(spec, str) and all(isinstance(other, str) and other == spec for other in holders)
        while label in labels and not same_spec:
            label, number = f"{base} #{number}", number + 1
        labels.append(label)
    return labels


def _object_label(agent) -> str:
    cls = type(agent)
    name = getattr(agent, "__dict__", {}).get("name", cls.__dict__.get("name"))  # its own, not a base class's
    if isinstance(name, str) and name.strip() and name != "agent":
        return " ".join(name.split())
    if cls.__repr__ is not object.__repr__:
        return " ".join(repr(agent).split())
    return f"{cls.__module__}:{cls.__qualname__}"


def _play_deals(tasks, workers):
    """The games of each deal task, in task order. Agents are built once for the tasks played inline,
    and once per chunk of tasks a worker process plays."""
    if workers > 1 and len(tasks) > 1:
        size = max(1, len(tasks) // (workers * 8))
        chunks = [tasks[i:i + size] for i in range(0, len(tasks), size)]
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for chunk_games in pool.map(_play_chunk, chunks):
                yield from chunk_games
    else:
        built = {}
        for task in tasks:
            yield _play_deal(task, built)


def _play_chunk(tasks) -> list:
    """The games of each of ``tasks`` (in a worker process), their agents built once."""
    built = {}
    return [_play_deal(task, built) for task in tasks]


def _play_deal(task, built):
    """Play every rotation of one deal; ``built`` holds the agents built so far (:func:`_seat_agents`)."""
    config_dict, specs, labels, seed, deal, record = task
    config = RulesConfig(**config_dict)
    return [_play_rotation(config, specs, labels, seed, deal, r, side_agent, record, built)
            for r, side_agent in enumerate(rotations(config.num_sides))]


def _play_rotation(config, specs, labels, seed, deal, rotation, side_agent, record, built) -> GameResult:
    seat_spec = seat_agents(config, side_agent)  # each seat's index into specs
    agents = _seat_agents(specs, seat_spec, built)
    start = time.perf_counter()
    try:
        game, hands, act_seconds, rec = play_game(config, agents, deal_seed(seed, deal),
                                                  agent_seeds(config, seed, deal, rotation), record=record)
    except AgentError as exc:
        label = labels[seat_spec[exc.seat]]
        who = f"agent {label!r} (seat {exc.seat}, deal {deal}, rotation {rotation} of the match on seed {seed})"
        raise AgentError(exc.seat, exc.detail, exc.place, who) from exc.__cause__
    seconds = time.perf_counter() - start
    side_act = [0.0] * config.num_sides
    for seat, secs in enumerate(act_seconds):
        side_act[config.side_of(seat)] += secs
    if rec is not None:
        rec.update(seats=[labels[idx] for idx in seat_spec], rotation=rotation, deal=deal)
    return GameResult(deal, rotation, side_agent, tuple(game.scores), tuple(game.winners), hands, seconds,
                      tuple(side_act), rec)


def _seat_agents(specs, seat_spec, built) -> list:
    """The agent of each seat: a spec's own agent for that seat; an object itself at its first seat of
    the game and a copy of it at each further one. Each is built once and kept in ``built``, keyed by
    ``(spec, seat)`` or ``(object's index, use)``."""
    agents, uses = [], {}
    for seat, idx in enumerate(seat_spec):
        spec = specs[idx]
        if isinstance(spec, str):
            agents.append(_built_agent(built, (spec, seat), lambda spec=spec: make_agent(spec)))
            continue
        use = uses[id(spec)] = uses.get(id(spec), -1) + 1  # this game's seats of the same object so far
        agents.append(spec if use == 0 else
                      _built_agent(built, (idx, use), lambda spec=spec: copy.deepcopy(spec)))
    return agents


def _built_agent(built, key, build):
    if key not in built:
        built[key] = build()
    return built[key]


class _NoBar:
    def update(self, n=1):
        pass

    def close(self):
        pass


def _progress_bar(total, enabled):
    if not enabled:
        return _NoBar()
    from tqdm import tqdm

    return tqdm(total=total, unit="game", leave=False)
