"""Tune the heuristic agent's weights by the cross-entropy method: how the champion's rollout weights were chosen.

Each candidate weight vector plays the heuristic agent's default weights on
duplicate deals (every deal once from each side; 3 players: the candidate in
each seat against two defaults) on the compiled heuristic of the batched
environment, thousands of games a second. Every iteration draws ``--population``
candidates around the current mean (the mean itself first, so its score on
that iteration's fresh deals is an unselected estimate), keeps the best
``--elite`` and moves the mean and spread towards them.

    python benchmarks/tune_rollout_weights.py --players 2            # the run that chose CHAMPION_ROLLOUT_WEIGHTS
    python benchmarks/tune_rollout_weights.py --check 0.947/0.559/1.367/0.246/0.535/2.371 --deals 5000 --seed 777001

``--check W`` plays one weight vector (``/``-separated, in the order of
``heuristic.WEIGHT_NAMES``) against the defaults instead. The champion with
the tuned rollouts is then measured in the arena (docs/history.md).
"""

import argparse
import json

import numpy as np

from allfives_env.agents.heuristic import WEIGHT_NAMES
from allfives_env.agents.heuristic_compiled import HeuristicScratch
from allfives_env.agents.search_compiled import HEURISTIC_WEIGHTS
from allfives_env.vector import VectorAllFives


def duplicate_match(candidate, opponent, deals, seed, players) -> float:
    """The candidate weights' win rate (draws half) against ``opponent`` weights on ``deals`` duplicate deals."""
    copies = 3 if players == 3 else 2  # one copy per candidate seat (per side with 2 or 4 players)
    games = copies * deals
    venv = VectorAllFives(games, num_players=players)
    step = venv.reset(seed=seed, deal_ids=np.arange(games) % deals)
    candidate_seat = np.arange(games) // deals
    side = (lambda seat: seat % 2) if players == 4 else (lambda seat: seat)
    done, result = np.zeros(games, bool), np.zeros(games)
    scratch = HeuristicScratch(venv.num_sides)
    actions = np.full(games, -1, np.int64)
    while not done.all():
        state = venv.compiled_state()
        actions[:] = -1  # SKIP: a finished game stays as it is
        mine = ~done & (side(step.to_move) == side(candidate_seat))
        for who, weights in ((mine, candidate), (~done & ~mine, opponent)):
            index = np.flatnonzero(who).astype(np.int64)
            actions[index] = scratch.moves(state, index, weights, np.zeros(len(index), np.int64))
        step = venv.step(actions)
        ended = np.flatnonzero(step.terminated & ~done)
        result[ended] = (step.final_outcome[ended, candidate_seat[ended]] + 1) / 2
        done[ended] = True
    return float(result.mean())


def cross_entropy(players, iterations, population, elite, deals, seed, log=print) -> dict:
    """The CEM run: every iteration's unselected score of the mean, and the final mean weights."""
    rng = np.random.default_rng(seed)
    mean = HEURISTIC_WEIGHTS.copy()
    spread = 0.5 * np.abs(mean) + 0.1
    history = []
    for it in range(iterations):
        deal_seed = 100000 + 1000 * seed + it  # fresh deals every iteration, shared by its candidates
        candidates = [mean.copy()] + [np.maximum(mean + spread * rng.standard_normal(len(mean)), 0.0)
                                      for _ in range(population - 1)]
        scores = [duplicate_match(c, HEURISTIC_WEIGHTS, deals, deal_seed, players) for c in candidates]
        best = np.array([candidates[i] for i in np.argsort(scores)[::-1][:elite]])
        history.append({"iteration": it, "mean_score": scores[0], "best_score": max(scores)})
        mean = best.mean(0)
        spread = 0.7 * spread + 0.3 * best.std(0) + 0.02  # keep exploring: the scores are noisy
        log(f"{it:>3}  mean's score {scores[0]:.4f}  best {max(scores):.4f}  new mean "
            + "/".join(f"{w:.3f}" for w in mean))
    return {"players": players, "weights": dict(zip(WEIGHT_NAMES, mean.round(3).tolist())), "history": history}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--iterations", type=int, default=8)
    parser.add_argument("--population", type=int, default=14)
    parser.add_argument("--elite", type=int, default=4)
    parser.add_argument("--deals", type=int, default=2000, help="duplicate deals per candidate")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--check", metavar="W", help="play these weights against the defaults instead")
    parser.add_argument("--json", help="write the result here")
    args = parser.parse_args(argv)
    if args.check:
        weights = [float(w) for w in args.check.split("/")]
        if len(weights) != len(WEIGHT_NAMES):
            parser.error(f"--check needs {len(WEIGHT_NAMES)} weights ({'/'.join(WEIGHT_NAMES)}), got {len(weights)}")
        rate = duplicate_match(np.array(weights), HEURISTIC_WEIGHTS, args.deals, args.seed, args.players)
        print(f"{args.check} against the default weights: {rate:.4f} ({args.deals} duplicate deals, seed {args.seed})")
        result = {"players": args.players, "weights": weights, "win_rate": rate, "deals": args.deals, "seed": args.seed}
    else:
        result = cross_entropy(args.players, args.iterations, args.population, args.elite, args.deals, args.seed)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)


if __name__ == "__main__":
    main()
