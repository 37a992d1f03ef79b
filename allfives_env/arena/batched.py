"""Matches between batched agents on the batched env: many games in a few seconds.

:func:`batched_match` plays side 0's agent against the others' on ``deals x R``
games (every rotation of each deal, as :func:`~allfives_env.arena.run_match`
does), with batched twins of the agents (:mod:`allfives_env.agents.batched`:
``random``, ``greedy``, ``heuristic``, ``ppo:PATH``). The deals come from the
batched env's own streams (``reset(seed, deal_ids=...)``): the same distribution
as the arena's deals, not the same tiles, so its numbers estimate the same
expectations as an arena match on other deals.
"""

import numpy as np

from ..agents.batched import make_batched_agent
from ..rules.config import RulesConfig
from ..vector import SKIP, VectorAllFives
from .schedule import rotations, seat_agents


def batched_match(config: RulesConfig, specs, deals: int, seed: int = 0) -> dict:
    """Play ``specs`` (one per side; ``specs[0]`` is the measured agent) on ``deals`` deals, every rotation.
    A spec is a batched agent's spec string or a function that makes the agent for the match's env
    (``make(venv) -> BatchedAgent``: training's live network).

    Returns ``{"win_share": (G,), "margin": (G,), "deal": (G,)}`` for agent 0 per game (G = deals x R):
    1 for a win, 1/k for a game drawn between k winners, 0 for a loss; its side's final score minus
    the mean of the other sides'; the deal index of the game."""
    if len(specs) != config.num_sides:
        raise ValueError(f"{len(specs)} specs for {config.num_sides} sides; give one per side")
    R = config.num_sides
    B = int(deals) * R
    options = config.to_dict()
    options.pop("num_players")
    venv = VectorAllFives(B, num_players=config.num_players, episode="game", reward="points", auto_forced=True,
                          **options)
    out = venv.reset(seed=seed, deal_ids=np.arange(B) // R)
    agents = {}
    for k, spec in enumerate(specs):
        if spec not in agents:
            agents[spec] = spec(venv) if callable(spec) else make_batched_agent(spec, venv, seed=[seed, k])
    rotation = np.arange(B) % R  # game b plays rotation b % R of its deal, as the arena's schedule has them
    agent_at = np.array([seat_agents(config, side_agent) for side_agent in rotations(R)])[rotation]  # (B, n)
    measured_seat = np.argmax(agent_at == 0, axis=1)  # the first seat agent 0 plays
    seat_side = np.array([config.side_of(s) for s in range(config.num_players)])
    measured_side = seat_side[measured_seat]
    done = np.zeros(B, np.bool_)
    win_share, margin = np.zeros(B), np.zeros(B)
    buffer = np.zeros(B, np.int64)
    rows = np.arange(B)
    while not done.all():
        actions = np.full(B, SKIP, np.int64)
        mover_agent = agent_at[rows, out.to_move]
        for k, spec in enumerate(specs):
            games = np.flatnonzero((mover_agent == k) & ~done)
            if len(games):
                actions[games] = agents[spec].actions(out, games, buffer[:len(games)])
        for agent in agents.values():
            agent.before_step(actions)
        out = venv.step(actions)
        for agent in agents.values():
            agent.after_step(out)
        ended = np.flatnonzero(out.terminated & ~done)
        if len(ended):
            outcome = out.final_outcome[ended, measured_seat[ended]]
            winners = np.sum(out.final_outcome[ended][:, [np.flatnonzero(seat_side == s)[0] for s in range(R)]] >= 0,
                             axis=1)
            win_share[ended] = np.where(outcome > 0, 1.0, np.where(outcome == 0, 1.0 / np.maximum(winners, 1), 0.0))
            scores = out.final_scores[ended]
            mine = scores[np.arange(len(ended)), measured_side[ended]]
            margin[ended] = mine - (scores.sum(axis=1) - mine) / (R - 1)
            done[ended] = True
    return {"win_share": win_share, "margin": margin, "deal": np.arange(B) // R}
