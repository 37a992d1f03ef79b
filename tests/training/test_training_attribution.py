"""Reward attribution: the collector's per-seat chains get exactly what the AEC env's last() gives.

A scripted AEC episode (4 players, zero-sum points: every point scored lands
on the other three seats' transitions on the scorer's turn, partners share)
is replayed through the batched collector; every seat's decisions must carry
the rewards that ``last()`` reports, the last one ``done`` with the win reward.
"""

import numpy as np
import pytest
import torch
from torch import nn

import allfives_env
from allfives_env.rules.actions import NUM_ACTIONS
from allfives_env.rules.tiles import mask_to_tiles
from training.config import make_config
from training.rollout import Collector


class ScriptedNet(nn.Module):
    """Puts all probability on the next scripted action (uniform once the script is used up)."""

    def __init__(self, actions):
        super().__init__()
        self.actions = list(actions)
        self.k = 0

    def forward(self, obs, mask=None):  # the collector passes the legal mask (PolicyNet uses it)
        logits = torch.zeros(obs.shape[0], NUM_ACTIONS)
        for row in range(obs.shape[0]):
            if self.k < len(self.actions):
                logits[row, self.actions[self.k]] = 200.0
            self.k += 1
        return logits, torch.zeros(obs.shape[0])


def scripted_aec_episode(num_players, target, seed):
    """Random scripted play; returns (deal, actions, {seat: [reward per decision]}, winners) or None
    if the game does not end in its first hand (later deals differ between the two envs)."""
    env = allfives_env.env(num_players=num_players, reward="zero_sum", auto_forced=True, target=target)
    env.reset(seed=seed)
    game = env.unwrapped.game
    deal = ([mask_to_tiles(h) for h in game.hands], list(game.boneyard), game.leader)
    rng = np.random.default_rng(seed)
    actions, per_seat, acted = [], {s: [] for s in range(num_players)}, set()
    for agent in env.agent_iter():
        seat = int(agent.split("_")[1])
        _, reward, term, trunc, _ = env.last()
        if seat in acted:
            per_seat[seat][-1] += reward  # what the seat gained since its last decision
        if term or trunc:
            env.step(None)
            continue
        legal = np.flatnonzero(env.unwrapped._masks[seat])
        action = int(legal[rng.integers(len(legal))])
        actions.append(action)
        per_seat[seat].append(0.0)
        acted.add(seat)
        env.step(action)
    game = env.unwrapped.game  # the engine's state at the end (read afresh: it is replayed on demand)
    if game.hand_number != 0:
        return None
    return deal, actions, per_seat, set(game.winners), game.config


@pytest.mark.parametrize("num_players, rollout_steps", [(2, None), (4, None), (4, 3), (3, 5)])
def test_rewards_reach_the_seat_that_earned_them(num_players, rollout_steps):
    """``rollout_steps=3``: the episode spans many rollouts; pending transitions are carried over."""
    target = 40
    for seed in range(200):
        episode = scripted_aec_episode(num_players, target, seed)
        if episode is not None:
            break
    deal, actions, per_seat, winners, rules = episode
    cfg = make_config({"num_players": num_players, "target": target, "num_envs": 1,
                       "num_steps": rollout_steps or 2 * len(actions) + 3, "reward_points": 1.0, "reward_win": 10.0,
                       "opp_self": 1.0, "opp_pool": 0.0, "opp_greedy": 0.0, "opp_random": 0.0,
                       "hidden_sizes": [8], "eval_opponents": ["random"], "best_metric": "random"})
    col = Collector(cfg)
    col.out = col.env.set_position([0], [deal[0]], [deal[1]], [deal[2]])
    net = ScriptedNet(actions)
    batches = [col.collect(net) for _ in range(1 if rollout_steps is None else 2 * len(actions) // rollout_steps + 3)]
    batch = type(batches[0])(*[None if getattr(batches[0], f) is None else np.concatenate([getattr(b, f) for b in batches])
                               for f in batches[0].__dataclass_fields__])
    if rollout_steps is None:
        assert list(batch.actions[:len(actions)]) == actions  # one rollout: the batch is in time order
    # points land on other seats' turns in this episode
    assert any(abs(r) > 0 for rewards in per_seat.values() for r in rewards)
    for seat in range(num_players):
        mine = np.flatnonzero(batch.seat == seat)[:len(per_seat[seat])]
        assert len(mine) == len(per_seat[seat])
        win = 10.0 * (1.0 if rules.side_of(seat) in winners else -1.0)
        expected = np.array(per_seat[seat])
        expected[-1] += win
        assert batch.rewards[mine] == pytest.approx(expected, abs=1e-4), f"seat {seat}"
        assert not batch.done[mine[:-1]].any() and batch.done[mine[-1]]
    if num_players == 4:  # partners' rewards are equal in total (they share a side)
        assert sum(per_seat[0]) == pytest.approx(sum(per_seat[2]))

