"""Speed of the search agent's two engines on the same positions: Python vs compiled (numba).

    python benchmarks/search_speed.py [--positions 40] [--samples 144] [--players 2 3 4]

For each player count, random play reaches ``--positions`` decisions with at
least two legal placements; at each one both engines value every legal action
with ``--samples`` worlds (``SearchAgent.action_values``), and the CPU time per
decision is recorded. Prints the medians and their ratio. (The compiled engine
is warmed up first, so numba's compilation is not counted.)
"""

import argparse
import statistics
import time

import numpy as np

from allfives_env.agents.search import MAX_SAMPLES, SearchAgent
from allfives_env.integrations.run_args import ScriptHelp, check_run_args
from allfives_env.rules.actions import DRAW
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view


def positions(config, count, seed):
    """Views of the seat to move at ``count`` random-play decisions with >= 2 placements."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        game = Game(config)
        game.start_game(rng)
        while not game.hand_over and len(out) < count:
            legal = game.legal_actions()
            if len([a for a in legal if a < DRAW]) >= 2 and rng.random() < 0.5:
                out.append(player_view(game.clone(), game.to_move))
            game.step(int(legal[int(rng.integers(len(legal)))]))
    return out


def time_engines(engines, config, views, samples) -> list:
    """The median CPU seconds a decision of each engine over ``views``, the engines taking turns on
    each position (a slower spell of the machine hits them alike)."""
    agents = [SearchAgent(samples=samples, engine=engine) for engine in engines]
    for agent in agents:
        agent.reset(views[0].seat, config, np.random.default_rng(0))
        agent.action_values(views[0], list(views[0].legal_actions))  # warm-up (numba compiles once)
    times = [[] for _ in agents]
    for view in views:
        for agent, spent in zip(agents, times):
            agent.seat = view.seat
            t0 = time.process_time()
            agent.action_values(view, list(view.legal_actions))
            spent.append(time.process_time() - t0)
    return [statistics.median(spent) for spent in times]


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0], formatter_class=ScriptHelp)
    p.add_argument("--positions", type=int, default=40, help="decisions timed per player count")
    p.add_argument("--samples", type=int, default=144, help="worlds per decision")
    p.add_argument("--players", type=int, nargs="+", choices=(2, 3, 4), default=[2, 3, 4])
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    try:
        check_run_args(args, positive=["positions", "samples"], seeds=["seed"],
                       at_most={"positions": 100_000, "samples": MAX_SAMPLES})
    except ValueError as exc:
        p.error(str(exc))
    print(f"search with {args.samples} worlds per decision; median CPU ms per decision over {args.positions} positions")
    print(f"{'players':>7}  {'python':>9}  {'compiled':>9}  {'speed-up':>8}")
    for n in args.players:
        config = RulesConfig(num_players=n)
        views = positions(config, args.positions, args.seed)
        python, compiled = time_engines(("python", "compiled"), config, views, args.samples)
        print(f"{n:>7}  {1000 * python:>9.2f}  {1000 * compiled:>9.2f}  {python / compiled:>7.1f}x")


if __name__ == "__main__":
    main()
