"""Matches between agents: duplicate deals, seat rotation, statistics, records, ratings.

How a match is scheduled. A match of ``G`` games between one agent spec per
side plays ``ceil(G / R)`` *deals*, each once per rotation of the sides over
the seats (``R`` = number of sides: 2 with 2 or 4 players, 3 with 3), so
every agent gets every seat of every deal and the luck of the deal cancels.
Rotation ``r`` gives side ``s`` to agent ``(s + r) % R``; with 4 players the
two specs are partnerships (seats 0, 2 = side 0; seats 1, 3 = side 1).

A "deal" is a whole game's sequence of deals: hand ``k`` of deal ``d`` uses
its own generator seeded by ``(seed, d, k)`` for the tile order and the
leader draw (R5/R19/V3), so every rotation sees the same hands in the same
order whatever happened in earlier hands (the leader draw is used only when
the rules call for one). Agents get generators seeded by
``(seed, d, rotation, seat)``: a match is reproducible from its seed, with
any number of worker processes.

Statistics per agent: game win rate with a 95% Wilson interval (a drawn
game, possible only with 3 players (R25), counts as half a win for each
winner), points per game (its side's final score), point margin per game
(its score minus the mean of the other sides' scores), points per hand and
mean hands per game.
"""

import json
import math
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..agents.base import make_agent
from ..rules.actions import action_name
from ..rules.config import RulesConfig
from ..rules.game import Game, draw_leader
from ..rules.tiles import mask_to_tiles
from ..rules.view import player_view

__all__ = [
    "GameResult", "AgentStats", "MatchResult", "play_game", "rotations", "run_match",
    "wilson_interval", "replay_record", "FixedDealRng", "hand_deal", "rate_agents",
    "format_table", "format_ratings",
]


# ------------------------------------------------------------------ deals
class FixedDealRng:
    """Stands in for a Generator when a hand's deal is already known.

    The engine asks its rng for a leader draw (``integers``, or a
    ``permutation`` for V3 ``heaviest_tile``) only when no seat won the
    previous hand, then for one ``permutation(28)`` for the deal. This object
    answers with the given ``leader`` and tile ``order`` (hands in seat order,
    then the boneyard in draw order).
    """

    def __init__(self, order, leader, config, needs_leader):
        self.order = list(order)
        self.leader = leader
        self.n = config.num_players
        self._leader_perm_pending = needs_leader and config.first_leader == "heaviest_tile"

    def integers(self, *args, **kwargs):
        return self.leader

    def permutation(self, n):
        if self._leader_perm_pending:  # V3: let seat `leader` draw the heaviest tile
            self._leader_perm_pending = False
            drawn = list(range(self.n - 1))
            drawn.insert(self.leader, 27)
            rest = [t for t in range(28) if t not in drawn]
            return np.array(drawn + rest)
        return np.array(self.order)


def hand_deal(config: RulesConfig, deal_seed, hand_index: int):
    """``(order, leader)`` of hand ``hand_index`` in the deal sequence ``deal_seed``."""
    gen = np.random.default_rng(np.random.SeedSequence([*_as_seq(deal_seed), hand_index]))
    leader = draw_leader(config, gen)
    order = [int(t) for t in gen.permutation(28)]
    return order, leader


def _as_seq(seed):
    return list(seed) if isinstance(seed, (tuple, list)) else [int(seed)]


def _start_hand(game, config, order, leader, first):
    if first:
        size = config.tiles_per_hand
        n = config.num_players
        hands = [order[i * size:(i + 1) * size] for i in range(n)]
        game.start_game(FixedDealRng(order, leader, config, True), hands=hands, boneyard=order[n * size:], leader=leader)
    else:
        game.start_next_hand(FixedDealRng(order, leader, config, game.next_leader is None))


# ------------------------------------------------------------------ one game
@dataclass
class GameResult:
    """One finished game. ``side_agent[s]`` is the agent index playing side ``s``."""

    deal: int
    rotation: int
    side_agent: tuple
    scores: tuple
    winners: tuple
    hands: int
    seconds: float
    act_seconds: tuple  # per side: CPU time spent in act() (process time: robust to a busy machine)
    record: dict = None


def play_game(config: RulesConfig, agents_by_seat, deal_seed, agent_seeds=None, record=False, max_steps=100000):
    """Play one game to the target; returns ``(game, hands_played, act_cpu_seconds_per_seat, record)``.

    ``agents_by_seat`` are agent objects; each is reset with its own
    generator (``agent_seeds[seat]``, default ``(deal_seed, seat)``).
    ``deal_seed`` fixes the whole sequence of deals (see :func:`hand_deal`).
    """
    n = config.num_players
    if len(agents_by_seat) != n:
        raise ValueError(f"{len(agents_by_seat)} agents for {n} seats")
    for seat, agent in enumerate(agents_by_seat):
        seed = agent_seeds[seat] if agent_seeds is not None else [*_as_seq(deal_seed), 1_000_003, seat]
        agent.reset(seat, config, np.random.default_rng(np.random.SeedSequence(_as_seq(seed))))
    game = Game(config)
    act_seconds = [0.0] * n
    rec_hands = []
    hand_index = 0
    order, leader = hand_deal(config, deal_seed, 0)
    _start_hand(game, config, order, leader, first=True)
    steps = 0
    while True:
        if record:
            rec_hands.append({
                "hands": [mask_to_tiles(h) for h in game.hands], "boneyard": list(game.boneyard),
                "leader": game.leader, "actions": [],
            })
        while not game.hand_over:
            seat = game.to_move
            legal = game.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                view = player_view(game, seat)
                t0 = time.process_time()
                action = agents_by_seat[seat].act(view, view.legal_actions)
                act_seconds[seat] += time.process_time() - t0
                if action not in legal:
                    raise ValueError(f"agent at seat {seat} chose an illegal action {action!r}; legal: {list(legal)}")
            game.step(int(action))
            if record:
                rec_hands[-1]["actions"].append(int(action))
            steps += 1
            if steps > max_steps:  # pragma: no cover - a game always ends
                raise RuntimeError("game did not end")
        if record:
            rec_hands[-1]["scores_after"] = list(game.scores)
        if game.game_over:
            break
        hand_index += 1
        order, leader = hand_deal(config, deal_seed, hand_index)
        _start_hand(game, config, order, leader, first=False)
    rec = None
    if record:
        rec = {
            "config": config.to_dict(), "deal_seed": _as_seq(deal_seed), "hands": rec_hands,
            "scores": list(game.scores), "winners": list(game.winners),
        }
    return game, hand_index + 1, act_seconds, rec


def replay_record(record) -> Game:
    """Replay a game record (as written by the arena) with the engine; returns the
    final :class:`Game`. Raises ``ValueError`` if a recorded action is illegal."""
    config = RulesConfig.from_options(**record["config"])
    game = Game(config)
    for k, hand in enumerate(record["hands"]):
        order = [t for h in hand["hands"] for t in h] + list(hand["boneyard"])
        _start_hand(game, config, order, hand["leader"], first=(k == 0))
        for action in hand["actions"]:
            if action not in game.legal_actions():
                raise ValueError(f"hand {k}: recorded action {action_name(action)} is not legal")
            game.step(action)
    return game


# ------------------------------------------------------------------ scheduling
def rotations(num_sides: int) -> list:
    """Each rotation as a tuple ``side -> agent index``: ``(s + r) % num_sides``."""
    return [tuple((s + r) % num_sides for s in range(num_sides)) for r in range(num_sides)]


def _seat_agents(config, side_agent):
    return [side_agent[config.side_of(seat)] for seat in range(config.num_players)]


_WORKER_AGENTS = {}


def _play_deal(task):
    """Play every rotation of one deal (runs in a worker process or inline)."""
    config_dict, specs, seed, deal, record = task
    config = RulesConfig(**config_dict)
    results = []
    for r, side_agent in enumerate(rotations(config.num_sides)):
        seat_agent = _seat_agents(config, side_agent)
        agents = []
        for seat, idx in enumerate(seat_agent):
            key = (specs[idx] if isinstance(specs[idx], str) else id(specs[idx]), seat)
            if key not in _WORKER_AGENTS:
                _WORKER_AGENTS[key] = make_agent(specs[idx])
            agents.append(_WORKER_AGENTS[key])
        t0 = time.perf_counter()
        game, hands, act_seconds, rec = play_game(
            config, agents, deal_seed=[seed, deal],
            agent_seeds=[[seed, deal, r, seat] for seat in range(config.num_players)], record=record,
        )
        side_act = [0.0] * config.num_sides
        for seat, secs in enumerate(act_seconds):
            side_act[config.side_of(seat)] += secs
        if rec is not None:
            rec["seats"] = [specs[i] if isinstance(specs[i], str) else repr(specs[i]) for i in seat_agent]
            rec["rotation"] = r
            rec["deal"] = deal
        results.append(GameResult(
            deal, r, side_agent, tuple(game.scores), tuple(game.winners), hands,
            time.perf_counter() - t0, tuple(side_act), rec,
        ))
    return results


@dataclass
class AgentStats:
    spec: str
    games: int = 0
    wins: float = 0.0
    points: float = 0.0
    margin: float = 0.0
    hands: int = 0
    act_seconds: float = 0.0

    @property
    def win_rate(self):
        return self.wins / self.games if self.games else float("nan")

    def to_dict(self):
        lo, hi = wilson_interval(self.wins, self.games)
        g = max(self.games, 1)
        return {
            "spec": self.spec, "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
            "win_rate_ci95": [lo, hi], "points_per_game": self.points / g, "margin_per_game": self.margin / g,
            "points_per_hand": self.points / max(self.hands, 1), "hands_per_game": self.hands / g,
            "act_cpu_seconds_per_game": self.act_seconds / g,
        }


@dataclass
class MatchResult:
    config: RulesConfig
    specs: list
    seed: int
    games: list = field(default_factory=list)

    def agent_stats(self) -> list:
        stats = [AgentStats(str(s)) for s in self.specs]
        for game in self.games:
            n = len(game.scores)
            for side, idx in enumerate(game.side_agent):
                st = stats[idx]
                st.games += 1
                if side in game.winners:
                    st.wins += 1.0 / len(game.winners)  # a drawn game is half a win
                st.points += game.scores[side]
                others = [game.scores[s] for s in range(n) if s != side]
                st.margin += game.scores[side] - sum(others) / len(others)
                st.hands += game.hands
                st.act_seconds += game.act_seconds[side]
        return stats

    def to_dict(self) -> dict:
        n = max(len(self.games), 1)
        return {
            "games": len(self.games), "players": self.config.num_players, "seed": self.seed,
            "rules": self.config.to_dict(),
            "deals": len({g.deal for g in self.games}), "rotations": self.config.num_sides,
            "seconds_per_game": sum(g.seconds for g in self.games) / n,
            "agents": [s.to_dict() for s in self.agent_stats()],
        }


def run_match(config: RulesConfig, specs, games: int, seed: int = 0, workers: int = 1,
              progress: bool = False, records_path=None) -> MatchResult:
    """Play ``games`` games (rounded up to whole rotations) between one spec per side.

    ``specs`` are spec strings (see :mod:`allfives_env.agents.base`) or, with
    ``workers == 1``, agent objects. Results do not depend on ``workers``.
    """
    num_sides = config.num_sides
    if len(specs) != num_sides:
        raise ValueError(
            f"{len(specs)} agent specs for {config.num_players} players; give {num_sides} "
            f"(one per {'partnership' if config.num_players == 4 else 'player'})"
        )
    if games < 1:
        raise ValueError(f"games={games}; allowed: a positive integer")
    for spec in specs:  # fail fast on a bad spec, before any worker starts
        make_agent(spec)
    deals = -(-games // num_sides)
    record = records_path is not None
    tasks = [(config.to_dict(), list(specs), seed, d, record) for d in range(deals)]
    result = MatchResult(config, list(specs), seed)
    bar = _progress_bar(deals * num_sides, progress)
    try:
        if workers > 1 and deals > 1:
            with ProcessPoolExecutor(max_workers=workers) as pool:
                for res in pool.map(_play_deal, tasks, chunksize=max(1, deals // (workers * 8))):
                    result.games.extend(res)
                    bar.update(len(res))
        else:
            for task in tasks:
                res = _play_deal(task)
                result.games.extend(res)
                bar.update(len(res))
    finally:
        bar.close()
        _WORKER_AGENTS.clear()
    if record:
        with open(records_path, "w") as f:
            for game in result.games:
                f.write(json.dumps(game.record) + "\n")
    return result


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


# ------------------------------------------------------------------ statistics
def wilson_interval(successes: float, n: int, z: float = 1.959963984540054) -> tuple:
    """95% Wilson score interval for a proportion (half successes allowed)."""
    if n <= 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


def format_table(match: MatchResult) -> str:
    d = match.to_dict()
    head = (f"{d['games']} games, {d['players']} players, {d['deals']} deals x {d['rotations']} rotations, "
            f"seed {d['seed']}, {d['seconds_per_game']:.3f} s/game")
    cols = ("agent", "win rate", "95% CI", "pts/game", "margin/game", "pts/hand", "hands/game", "act cpu s/game")
    rows = [cols]
    for a in d["agents"]:
        lo, hi = a["win_rate_ci95"]
        rows.append((a["spec"], f"{a['win_rate']:.3f}", f"[{lo:.3f}, {hi:.3f}]", f"{a['points_per_game']:.1f}",
                     f"{a['margin_per_game']:+.1f}", f"{a['points_per_hand']:.2f}", f"{a['hands_per_game']:.2f}",
                     f"{a['act_cpu_seconds_per_game']:.3f}"))
    return head + "\n" + _grid(rows)


def _grid(rows):
    widths = [max(len(str(r[i])) for r in rows) for i in range(len(rows[0]))]
    lines = ["  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


# ------------------------------------------------------------------ ratings
def rate_agents(config: RulesConfig, specs, games: int, seed: int = 0, workers: int = 1, progress=False,
                prior_sd_elo: float = 400.0) -> dict:
    """Round-robin over a pool of specs and an Elo fit with uncertainty.

    Every pair (every triple with 3 players) plays a duplicate match of
    ``games`` games. Each game yields pairwise results between the agents
    at the table (higher final score wins, equal scores half each); the Elo
    ratings are the maximum a-posteriori Bradley-Terry fit with a weak
    Gaussian prior (``prior_sd_elo``, which keeps ratings finite when one
    agent wins every game), centred on a mean of 1500; ``sd`` is the
    posterior standard deviation from the Hessian.
    """
    from itertools import combinations

    specs = list(specs)
    k = config.num_sides
    if len(specs) < k:
        raise ValueError(f"rating needs at least {k} agents for {config.num_players} players; got {len(specs)}")
    pairs = []  # (i, j, score of i)
    matches = []
    for group in combinations(range(len(specs)), k):
        match = run_match(config, [specs[i] for i in group], games, seed=seed, workers=workers, progress=progress)
        matches.append((group, match))
        for game in match.games:
            for a, b in combinations(range(k), 2):
                ia, ib = group[game.side_agent[a]], group[game.side_agent[b]]
                sa, sb = game.scores[a], game.scores[b]
                pairs.append((ia, ib, 1.0 if sa > sb else 0.0 if sa < sb else 0.5))
    ratings, sds = _bradley_terry(len(specs), pairs, prior_sd_elo)
    return {
        "players": config.num_players, "games_per_match": games, "seed": seed,
        "agents": [{"spec": specs[i], "elo": ratings[i], "elo_sd": sds[i]} for i in range(len(specs))],
        "matches": [
            {"specs": [specs[i] for i in group], "agents": m.to_dict()["agents"]} for group, m in matches
        ],
    }


def _bradley_terry(n, pairs, prior_sd_elo):
    scale = 400.0 / math.log(10.0)
    prior_prec = (scale / prior_sd_elo) ** 2
    r = np.zeros(n)
    for _ in range(100):
        grad = -prior_prec * r
        hess = -prior_prec * np.eye(n)
        for i, j, s in pairs:
            p = 1.0 / (1.0 + math.exp(r[j] - r[i]))
            grad[i] += s - p
            grad[j] -= s - p
            w = p * (1 - p)
            hess[i, i] -= w
            hess[j, j] -= w
            hess[i, j] += w
            hess[j, i] += w
        step = np.linalg.solve(hess, grad)
        r -= step
        if np.max(np.abs(step)) < 1e-9:
            break
    cov = np.linalg.inv(-hess)
    # ratings relative to the pool mean
    centre = np.eye(n) - np.ones((n, n)) / n
    cov_c = centre @ cov @ centre.T
    r = r - r.mean()
    return [1500.0 + scale * x for x in r], [scale * math.sqrt(max(cov_c[i, i], 0.0)) for i in range(n)]


def format_ratings(rating: dict) -> str:
    rows = [("agent", "Elo", "+/- 95%")]
    for a in sorted(rating["agents"], key=lambda a: -a["elo"]):
        rows.append((a["spec"], f"{a['elo']:.0f}", f"{1.96 * a['elo_sd']:.0f}"))
    return (f"round robin, {rating['players']} players, {rating['games_per_match']} games per match, "
            f"seed {rating['seed']}\n" + _grid(rows))
