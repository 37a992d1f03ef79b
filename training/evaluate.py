"""Evaluation during training: the live network against fixed opponents, in memory.

Each opponent plays a duplicate match: ``ceil(games / R)`` deal sequences, each
once per rotation of the ``R`` sides over the seats, so the policy holds every
side of every deal and the luck of the deal cancels. The deals depend only on
``seed``: every evaluation of a run, and of every run, sees the same games.

``random``, ``greedy`` and ``heuristic`` play on the batched env (the compiled
path the policy trains on): every game of the match is stepped together, the
policy's decisions in one batched forward pass per step, the opponents'
compiled. Any other agent spec (``search``, ``ppo:PATH``, ...) plays through the
arena (:func:`allfives_env.arena.run_match`) against the policy as an in-memory
agent (:meth:`~allfives_env.agents.ppo.agent.PPOAgent.from_network`). Nothing is
written to disk.
"""

import time

import numpy as np

from allfives_env.agents.batched import BatchedPolicy
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.arena import check_agents, run_match, wilson_interval
from allfives_env.arena.batched import batched_match

#: Opponents that play on the batched env; any other spec plays through the arena.
COMPILED_OPPONENTS = ("random", "greedy", "heuristic")


class Evaluator:
    """``evaluate(net)`` -> ``{opponent: {"win_rate", "ci_low", "ci_high", "margin", "games", "seconds"}}``.

    ``margin`` is the policy's side's final score minus the mean of the other sides', per game."""

    def __init__(self, rules, features, opponents, games, seed, workers=1):
        self.rules, self.features, self.opponents = rules, features, list(opponents)
        # seated under the training rules now, not at the first evaluation (a policy refuses other rules)
        check_agents(rules, [spec for spec in self.opponents if spec not in COMPILED_OPPONENTS])
        self.games, self.seed, self.workers = int(games), int(seed), int(workers)
        self.num_sides = rules.num_sides
        self.deals = -(-self.games // self.num_sides)

    def evaluate(self, net) -> dict:
        results = {}
        for opponent in self.opponents:
            t0 = time.perf_counter()
            if opponent in COMPILED_OPPONENTS:
                results[opponent] = _summary(*self._batched_match(net, opponent))
            else:
                results[opponent] = self._arena_match(net, opponent)
            results[opponent]["seconds"] = time.perf_counter() - t0
        return results

    # ----------------------------------------------------------- batched
    def _batched_match(self, net, opponent):
        """Every game of the match at once (:func:`~allfives_env.arena.batched.batched_match`, the policy
        played as ``ppo:PATH`` plays it); per game the policy's win share and point margin."""
        policy = PPOAgent.from_network(net, self.rules, self.features)
        specs = [lambda venv: BatchedPolicy(venv, policy)] + [opponent] * (self.num_sides - 1)
        result = batched_match(self.rules, specs, self.deals, seed=self.seed)
        return result["win_share"][:self.games], result["margin"][:self.games]

    # ----------------------------------------------------------- arena
    def _arena_match(self, net, opponent) -> dict:
        agent = PPOAgent.from_network(net, self.rules, self.features)
        match = run_match(self.rules, [agent] + [opponent] * (self.num_sides - 1), self.games, seed=self.seed,
                          workers=self.workers)
        me = match.to_dict()["agents"][0]
        return {"win_rate": me["win_rate"], "ci_low": me["win_rate_ci95"][0], "ci_high": me["win_rate_ci95"][1],
                "margin": me["margin_per_game"], "games": me["games"]}


def _summary(win_share, margin) -> dict:
    wins, n = float(np.sum(win_share)), len(win_share)
    lo, hi = wilson_interval(wins, n)
    return {"win_rate": wins / n, "ci_low": lo, "ci_high": hi, "margin": float(np.mean(margin)), "games": n}
