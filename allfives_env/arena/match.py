"""Run a match: play every rotation of every deal, inline or in worker processes.

The schedule is in :mod:`~allfives_env.arena.schedule`, the statistics in
:mod:`~allfives_env.arena.stats`.
"""

import pickle
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from ..agents.registry import make_agent
from ..env.options import check_count, check_seed
from ..rules.config import RulesConfig
from ..rules.record import write_records
from .game import play_game
from .outputs import check_output_file
from .schedule import agent_seeds, deal_seed, num_deals, rotations, seat_agents
from .stats import GameResult, MatchResult


def run_match(config: RulesConfig, specs, games: int, seed: int = 0, workers: int = 1,
              progress: bool = False, records_path=None) -> MatchResult:
    """Play ``games`` games (rounded up to whole rotations) between one spec per side.

    ``specs`` are spec strings (see :mod:`allfives_env.agents.registry`) or, with
    ``workers == 1``, agent objects. Results do not depend on ``workers``.
    ``records_path``: write every game's record there (JSONL, see
    :mod:`allfives_env.rules.record`)."""
    _check_match(config, specs, games, workers)
    check_seed(seed, allow_none=False)  # the deals come from it
    if records_path is not None:
        check_output_file(records_path, "records_path", "games.jsonl")  # before the games, not after them
    record = records_path is not None
    tasks = [(config.to_dict(), list(specs), seed, d, record) for d in range(num_deals(games, config.num_sides))]
    result = MatchResult(config, list(specs), seed)
    bar = _progress_bar(len(tasks) * config.num_sides, progress)
    try:
        for deal_games in _play_deals(tasks, workers):
            result.games.extend(deal_games)
            bar.update(len(deal_games))
    finally:
        bar.close()
        _WORKER_AGENTS.clear()
    if record:
        write_records(records_path, (game.record for game in result.games))
    return result


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
    check_count("games", games)
    check_count("workers", workers)
    if workers > 1:
        _check_picklable([spec for spec in specs if not isinstance(spec, str)], workers)
    if len(specs) != config.num_sides:
        raise ValueError(
            f"{spec_count(len(specs))} for {config.num_players} players; give {config.num_sides} "
            f"(one per {'partnership' if config.num_players == 4 else 'player'})"
        )
    check_agents(config, specs)


def check_agents(config: RulesConfig, specs) -> None:
    """A ``ValueError`` now, before any game, for a spec that cannot be built or cannot sit at a game of
    ``config`` (e.g. a policy trained for another player count): each spec is built and seated once. Agent
    objects are only checked to be agents (seating one would change its state)."""
    for spec in specs:
        agent = make_agent(spec)
        if isinstance(spec, str):
            agent.reset(0, config, np.random.default_rng(0))


def _check_picklable(agents, workers):
    """Agent objects travel to the worker processes by pickle: one that cannot is refused now, not at the
    first deal."""
    for agent in agents:
        try:
            pickle.dumps(agent)
        except Exception as exc:  # pickle raises PicklingError, AttributeError, TypeError... by object
            raise ValueError(f"workers={workers} sends the agents to worker processes, and {agent!r} cannot be "
                             f"pickled ({type(exc).__name__}); allowed: a spec string, or workers=1") from None


def _play_deals(tasks, workers):
    """The games of each deal task, in task order."""
    if workers > 1 and len(tasks) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            yield from pool.map(_play_deal, tasks, chunksize=max(1, len(tasks) // (workers * 8)))
    else:
        yield from map(_play_deal, tasks)


def _play_deal(task):
    """Play every rotation of one deal (runs in a worker process or inline)."""
    config_dict, specs, seed, deal, record = task
    config = RulesConfig(**config_dict)
    return [_play_rotation(config, specs, seed, deal, r, side_agent, record)
            for r, side_agent in enumerate(rotations(config.num_sides))]


def _play_rotation(config, specs, seed, deal, rotation, side_agent, record) -> GameResult:
    seat_agent = seat_agents(config, side_agent)
    agents = [_worker_agent(specs[idx], seat) for seat, idx in enumerate(seat_agent)]
    start = time.perf_counter()
    game, hands, act_seconds, rec = play_game(config, agents, deal_seed(seed, deal),
                                              agent_seeds(config, seed, deal, rotation), record=record)
    seconds = time.perf_counter() - start
    side_act = [0.0] * config.num_sides
    for seat, secs in enumerate(act_seconds):
        side_act[config.side_of(seat)] += secs
    if rec is not None:
        rec.update(seats=[_spec_label(specs[idx]) for idx in seat_agent], rotation=rotation, deal=deal)
    return GameResult(deal, rotation, side_agent, tuple(game.scores), tuple(game.winners), hands, seconds,
                      tuple(side_act), rec)


_WORKER_AGENTS = {}  # (spec, seat) -> agent: built once per process and match (a policy file loads once)


def _worker_agent(spec, seat):
    key = (spec if isinstance(spec, str) else id(spec), seat)
    if key not in _WORKER_AGENTS:
        _WORKER_AGENTS[key] = make_agent(spec)
    return _WORKER_AGENTS[key]


def _spec_label(spec) -> str:
    return spec if isinstance(spec, str) else repr(spec)


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
