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
import torch

from allfives_env.agents.batched import make_batched_agent
from allfives_env.agents.inference import ExclusionTracker
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.agents.ppo.network import masked_logits
from allfives_env.arena import check_agents, run_match, wilson_interval
from allfives_env.vector import VectorAllFives

#: Opponents that play on the batched env; any other spec plays through the arena.
COMPILED_OPPONENTS = ("random", "greedy", "heuristic")


class Evaluator:
    """``evaluate(net)`` -> ``{opponent: {"win_rate", "ci_low", "ci_high", "margin", "games", "seconds"}}``.

    ``margin`` is the policy's side's final score minus the mean of the other sides', per game."""

    def __init__(self, rules, features, opponents, games, seed, workers=1, device="cpu"):
        self.rules, self.features, self.opponents = rules, features, list(opponents)
        # seated under the training rules now, not at the first evaluation (a policy refuses other rules)
        check_agents(rules, [spec for spec in self.opponents if spec not in COMPILED_OPPONENTS])
        self.games, self.seed, self.workers = int(games), int(seed), int(workers)
        self.device = torch.device(device)
        self.num_sides = rules.num_sides
        self.deals = -(-self.games // self.num_sides)

    def evaluate(self, net) -> dict:
        results = {}
        for opponent in self.opponents:
            t0 = time.perf_counter()
            if opponent in COMPILED_OPPONENTS:
                outcome, margin = self._batched_match(net, opponent)
                results[opponent] = _summary(outcome, margin)
            else:
                results[opponent] = self._arena_match(net, opponent)
            results[opponent]["seconds"] = time.perf_counter() - t0
        return results

    # ----------------------------------------------------------- batched
    def _batched_match(self, net, opponent):
        """Every game of the match at once; per game the policy's outcome (+1/0/-1) and point margin."""
        rules, R = self.rules, self.num_sides
        B = self.deals * R
        venv = VectorAllFives(B, num_players=rules.num_players, episode="game", reward="points", auto_forced=True,
                              **_rule_options(rules))
        out = venv.reset(seed=self.seed, deal_ids=np.arange(B) // R)
        seat_side = np.array([rules.side_of(s) for s in range(rules.num_players)])
        policy_side = np.arange(B) % R  # rotation r: the policy holds side r
        policy_seat = np.array([np.flatnonzero(seat_side == side)[0] for side in policy_side])
        is_policy = seat_side[None, :] == policy_side[:, None]  # (B, n)
        play = make_batched_agent(opponent, venv, seed=[self.seed, 17])
        policy_input = PolicyInput(self.features, rules.num_players, rules.divisor)
        exclusions = ExclusionTracker(venv) if policy_input.infer else None
        inputs = np.zeros((B, policy_input.size), np.float32)
        actions = np.zeros(B, np.int64)
        done = np.zeros(B, np.bool_)
        outcome, margin = np.zeros(B), np.zeros(B)
        rows = np.arange(B)
        while not done.all():
            mover = out.to_move
            mine = np.flatnonzero(is_policy[rows, mover] & ~done)
            play.actions(out, rows, actions)  # every row; the policy's rows are overwritten below
            if len(mine):
                relative = None if exclusions is None else exclusions.relative(mover)
                x = policy_input(out.obs, out.mask, inputs, relative)
                actions[mine] = _most_likely(net, x[mine], out.mask[mine], self.device)
            if exclusions is not None:
                exclusions.before_step(actions)
            out = venv.step(actions)
            if exclusions is not None:
                exclusions.after_step(out)
            ended = np.flatnonzero(out.terminated & ~done)
            outcome[ended] = out.final_outcome[ended, policy_seat[ended]]
            scores = out.final_scores[ended]
            mine_score = scores[np.arange(len(ended)), policy_side[ended]]
            margin[ended] = mine_score - (scores.sum(axis=1) - mine_score) / (R - 1)
            done[ended] = True
        return outcome[:self.games], margin[:self.games]

    # ----------------------------------------------------------- arena
    def _arena_match(self, net, opponent) -> dict:
        agent = PPOAgent.from_network(net, self.rules, self.features)
        match = run_match(self.rules, [agent] + [opponent] * (self.num_sides - 1), self.games, seed=self.seed,
                          workers=self.workers)
        me = match.to_dict()["agents"][0]
        return {"win_rate": me["win_rate"], "ci_low": me["win_rate_ci95"][0], "ci_high": me["win_rate_ci95"][1],
                "margin": me["margin_per_game"], "games": me["games"]}


@torch.no_grad()
def _most_likely(net, x, mask, device):
    """The policy's most likely legal action per row (what ``ppo:PATH`` plays)."""
    legal = torch.from_numpy(mask > 0).to(device)
    logits, _ = net(torch.from_numpy(x).to(device), legal)
    return masked_logits(logits, legal).argmax(dim=1).cpu().numpy()


def _summary(outcome, margin) -> dict:
    wins = float(np.sum(outcome > 0) + 0.5 * np.sum(outcome == 0))
    n = len(outcome)
    lo, hi = wilson_interval(wins, n)
    return {"win_rate": wins / n, "ci_low": lo, "ci_high": hi, "margin": float(np.mean(margin)), "games": n}


def _rule_options(rules) -> dict:
    """The rule variants of ``rules`` as env options (the player count is given apart)."""
    options = rules.to_dict()
    options.pop("num_players")
    return options
