"""Evaluation during training: arena matches on fixed duplicate deals.

The current policy is exported to ``RUN_DIR/eval_policy.pt`` and played as
the spec ``ppo:RUN_DIR/eval_policy.pt`` through
:func:`allfives_env.arena.run_match` against each baseline (every other side
plays the baseline; with 4 players that is a baseline partnership). The
deals depend only on ``eval_seed``, so every evaluation of a run, and of
every run, sees the same games.
"""

import os
import time

from allfives_env.arena.match import run_match

from .checkpoint import export_policy


def evaluate_policy(net, rules, opponents, games, seed, run_dir, workers=1, features="none") -> dict:
    """``{opponent: {"win_rate", "ci_low", "ci_high", "margin", "games", "seconds"}}`` for the policy."""
    path = os.path.join(run_dir, "eval_policy.pt")
    export_policy(path, net, rules, features=features)
    spec = f"ppo:{path}"
    results = {}
    for opp in opponents:
        t0 = time.perf_counter()
        specs = [spec] + [opp] * (rules.num_sides - 1)
        match = run_match(rules, specs, games, seed=seed, workers=workers)
        me = match.to_dict()["agents"][0]
        results[opp] = {"win_rate": me["win_rate"], "ci_low": me["win_rate_ci95"][0], "ci_high": me["win_rate_ci95"][1],
                        "margin": me["margin_per_game"], "games": me["games"], "seconds": time.perf_counter() - t0}
    return results
