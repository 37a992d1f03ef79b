"""Elo ratings of a pool of agents: a round robin of duplicate matches and a Bradley-Terry fit."""

import math
from itertools import combinations

import numpy as np

from ..rules.config import RulesConfig
from .match import agent_labels, check_agents, run_match

ELO_SCALE = 400.0 / math.log(10.0)  # Elo points per unit of the logistic strength
ELO_MEAN = 1500.0


def rate_agents(config: RulesConfig, specs, games: int, seed: int = 0, workers: int = 1, progress=False,
                prior_sd_elo: float = 400.0) -> dict:
    """Round-robin over a pool of specs and an Elo fit with uncertainty.

    Every pair (every triple with 3 players) plays a duplicate match of
    ``games`` games. Each game yields pairwise results between the agents
    at the table (higher final score wins, equal scores half each); the Elo
    ratings are the maximum a-posteriori Bradley-Terry fit with a weak
    Gaussian prior (``prior_sd_elo``, which keeps ratings finite when one
    agent wins every game), centred on a mean of 1500; ``sd`` is the
    posterior standard deviation from the Hessian. ``pairwise`` keeps the
    same pairwise results as matrices: ``score[i][j]`` is agent ``i``'s total
    score against ``j`` over ``games[i][j]`` comparisons (the input of
    :func:`allfives_env.arena.population.win_rate_matrix`).
    """
    specs = list(specs)
    k = config.num_sides
    if len(specs) < k:
        raise ValueError(f"rating needs at least {k} agents for {config.num_players} players; got {len(specs)}")
    refuse_repeated_specs(specs, "the pool")
    check_agents(config, specs)  # before the first match: a bad spec found later would lose those before it
    labels = agent_labels(specs)  # the pool's names, in every match too
    pairs = []  # (i, j, score of i)
    matches = []
    for group in combinations(range(len(specs)), k):
        match = run_match(config, [specs[i] for i in group], games, seed=seed, workers=workers, progress=progress,
                          labels=[labels[i] for i in group])
        matches.append((group, match))
        pairs += _pairwise_results(group, match)
    ratings, sds = _bradley_terry(len(specs), pairs, prior_sd_elo)
    score, count = _pairwise_totals(len(specs), pairs)
    return {
        # the games played (rounded up to whole rotations), not the number asked for
        "players": config.num_players, "games_per_match": len(matches[0][1].games), "seed": seed,
        "agents": [{"spec": labels[i], "elo": ratings[i], "elo_sd": sds[i]} for i in range(len(specs))],
        "matches": [
            {"specs": [labels[i] for i in group], "agents": m.to_dict()["agents"]} for group, m in matches
        ],
        "pairwise": {"score": score, "games": count},
    }


def _pairwise_totals(n, pairs):
    """``(score, games)``: ``n x n`` lists, ``score[i][j]`` the sum of ``i``'s scores against ``j``
    over the ``games[i][j]`` results of ``pairs``."""
    score, count = np.zeros((n, n)), np.zeros((n, n), dtype=int)
    for i, j, s in pairs:
        score[i, j] += s
        score[j, i] += 1.0 - s
        count[i, j] += 1
        count[j, i] += 1
    return score.tolist(), count.tolist()


def _pairwise_results(group, match):
    """``(i, j, score of i)`` for every pair of sides of every game; ``group`` maps the
    match's agent indices to the pool's."""
    results = []
    for game in match.games:
        for a, b in combinations(range(len(group)), 2):
            sa, sb = game.scores[a], game.scores[b]
            results.append((group[game.side_agent[a]], group[game.side_agent[b]],
                            1.0 if sa > sb else 0.0 if sa < sb else 0.5))
    return results


def _bradley_terry(n, pairs, prior_sd_elo):
    """MAP strengths by Newton's method; returns ``(elo ratings, elo sds)`` relative to the pool mean."""
    prior_prec = (ELO_SCALE / prior_sd_elo) ** 2
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
    centre = np.eye(n) - np.ones((n, n)) / n
    cov_c = centre @ cov @ centre.T
    r = r - r.mean()
    return [ELO_MEAN + ELO_SCALE * x for x in r], [ELO_SCALE * math.sqrt(max(cov_c[i, i], 0.0)) for i in range(n)]


def refuse_repeated_specs(specs, where) -> None:
    """A ``ValueError`` if a spec string appears twice in ``specs`` (its rows could not be told apart)."""
    seen = set()
    for spec in specs:
        if isinstance(spec, str) and spec in seen:
            raise ValueError(f"agent spec {spec!r} is in {where} twice; give each agent once")
        seen.add(spec if isinstance(spec, str) else id(spec))
