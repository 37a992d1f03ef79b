"""Batched rollout collection with per-seat transition chains.

One :class:`Collector` drives a :class:`~allfives_env.vector.VectorAllFives`
of ``num_envs`` games. Each game has an *opponent type*, drawn when the game
starts: ``self`` (every seat is the learner), ``pool`` (the learner holds one
seat, or one partnership, against a past snapshot), ``greedy`` or ``random``
(against that baseline), or ``fixed`` (against ``fixed_opponent``, any agent with a
batched twin, :mod:`allfives_env.agents.batched`: what ``allfives exploit`` trains on). At every step the learner's rows go through the
network in one batched forward pass; the snapshot's rows in one more; the
baselines are compiled (greedy reads the observation's ``placement_points``
part: :func:`allfives_env.agents.greedy.greedy_from_observations`, the twin of
:func:`allfives_env.agents.greedy.greedy_action`).

Reward attribution (the same as the AEC env's ``last()``): the environment
returns every seat's reward at every step; each learner seat keeps the index
of its *pending* transition (its last decision) per game, and every step's
reward for that seat is added to it, whoever moved. A seat's transition is
closed (linked to its next decision) when the seat acts again, or marked
``done`` when the episode ends (the final step's reward, including the win
reward, belongs to the ended episode even though the game auto-resets).
Transitions still pending when the rollout ends are carried into the next
rollout, so each is trained on once, with the correct successor.

Rewards: ``reward_points`` times the zero-sum points of each step (own side's
gain minus the mean of the other sides'; partners share their side's) plus
``reward_win`` (+1 / -1, 0 for a drawn game) at a game's end.
"""

import os
import time
from dataclasses import dataclass

import numpy as np
import torch

from allfives_env.agents.batched import make_batched_agent
from allfives_env.agents.greedy import greedy_from_observations
from allfives_env.agents.inference import ExclusionTracker
from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.agents.ppo.network import PolicyNet
from allfives_env.rules.actions import NUM_ACTIONS
from allfives_env.vector import VectorAllFives

from .config import ConfigError, rules_of

SELF, POOL, GREEDY, RANDOM, FIXED = 0, 1, 2, 3, 4
# the per-transition arrays carried from one rollout to the next
CARRIED = ("obs", "mask", "actions", "logprobs", "values", "rewards", "done", "valid", "seat", "game")
OPPONENT_TYPES = ("self", "pool", "greedy", "random", "fixed")

def random_actions(mask, rng):
    """A uniformly random legal action per row."""
    noise = rng.random(mask.shape) * (mask > 0)
    return noise.argmax(axis=1)


def sample_actions(logits, mask, rng):
    """Sample from the softmax over legal actions (inverse CDF); ``(actions, log_probs)``.

    ``logits`` is a float32 numpy array (B, 114). An illegal action has
    probability exactly 0, so it is never chosen, whatever its logit."""
    legal = mask > 0
    masked = np.where(legal, logits, -np.inf)
    shifted = masked - masked.max(axis=1, keepdims=True)
    weights = np.exp(shifted)
    cdf = np.cumsum(weights, axis=1)
    total = cdf[:, -1]
    u = (1.0 - rng.random(len(total))) * total  # in (0, total]
    actions = (cdf < u[:, None]).sum(axis=1)
    actions = np.minimum(actions, NUM_ACTIONS - 1 - legal[:, ::-1].argmax(axis=1))  # guard: last legal action
    rows = np.arange(len(actions))
    return actions, shifted[rows, actions] - np.log(total)


@dataclass
class Batch:
    """The trainable transitions of one rollout (numpy arrays, flat)."""

    obs: np.ndarray
    mask: np.ndarray
    actions: np.ndarray
    logprobs: np.ndarray
    values: np.ndarray
    advantages: np.ndarray
    returns: np.ndarray
    rewards: np.ndarray  # the reward credited to each decision (for logs and tests)
    done: np.ndarray  # the seat's last decision of its episode
    seat: np.ndarray  # the acting seat
    game: np.ndarray  # the game index in the batched environment

    def __len__(self):
        return len(self.actions)


class Buffer:
    """Flat transition storage: carried transitions first, then ``num_steps * num_envs`` slots."""

    def __init__(self, capacity, obs_dim, num_actions):
        self.obs = np.zeros((capacity, obs_dim), np.float32)
        self.mask = np.zeros((capacity, num_actions), np.bool_)
        self.actions = np.zeros(capacity, np.int64)
        self.logprobs = np.zeros(capacity, np.float32)
        self.values = np.zeros(capacity, np.float32)
        self.rewards = np.zeros(capacity, np.float64)
        self.done = np.zeros(capacity, np.bool_)
        self.next_index = np.full(capacity, -1, np.int64)
        self.valid = np.zeros(capacity, np.bool_)
        self.seat = np.zeros(capacity, np.int64)
        self.game = np.zeros(capacity, np.int64)

    def clear(self, start, upto):
        """Empty the slots ``start:upto`` (the carried transitions before ``start`` keep their rewards)."""
        self.rewards[start:upto] = 0.0
        self.done[start:upto] = False
        self.next_index[:upto] = -1
        self.valid[start:upto] = False

    def move(self, src, dst):
        """Copy the transitions ``src`` to the slots ``dst`` (``dst`` before ``src``)."""
        for name in CARRIED:
            arr = getattr(self, name)
            arr[dst] = arr[src]
        self.next_index[dst] = -1


def machine_memory():
    """Bytes of memory this process may use: the machine's, or its control group's limit where lower; None
    where the system does not say."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (AttributeError, ValueError, OSError):
        return None
    try:
        with open("/sys/fs/cgroup/memory.max") as f:
            limit = f.read().strip()
    except OSError:
        return total
    return min(total, int(limit)) if limit.isdigit() else total


def check_rollout_fits(capacity, obs_dim, num_actions, memory=None):
    """Refuse (:class:`~.config.ConfigError`) a rollout whose buffer, and the update's copy of it, would not fit
    in memory: the allocation itself succeeds lazily, and the run is killed once the slots fill."""
    memory = machine_memory() if memory is None else memory
    per_row = 2 * sum(a.nbytes for a in vars(Buffer(1, obs_dim, num_actions)).values())
    if memory is None or capacity * per_row <= memory:
        return
    raise ConfigError(f"num_envs x num_steps: a rollout of {capacity:,} transitions needs about "
                      f"{capacity * per_row / 2 ** 30:,.1f} GiB (its buffers and the update's copy), more than this "
                      f"machine's {memory / 2 ** 30:.1f} GiB; allowed: num_envs x num_steps up to about "
                      f"{memory // per_row:,} here")


class Collector:
    """Steps ``cfg.num_envs`` games with the learner, its snapshots and the baselines."""

    def __init__(self, cfg, device="cpu"):
        self.cfg = cfg
        self.device = torch.device(device)
        rules = rules_of(cfg)
        self.env = VectorAllFives(cfg.num_envs, num_players=rules.num_players, episode="game", reward="zero_sum",
                                  auto_forced=cfg.auto_forced, target=rules.target)
        self.config = self.env.config
        self.n = self.env.num_players
        self.B = cfg.num_envs
        # the network input: the observation, then the config's derived features (agents/ppo/features.py)
        self.policy_input = PolicyInput(cfg.features, self.n, self.config.divisor)
        self.obs_dim = self.policy_input.size
        self.out = self.env.reset(seed=cfg.seed)
        # features=*_infer: what each seat's placements reveal if it plays greedy, kept per game
        self.exclusions = ExclusionTracker(self.env) if self.policy_input.infer else None
        self._inputs = np.zeros((self.B, self.obs_dim), np.float32)
        self.points_offset = self.env.layout.offset("placement_points")
        self.seat_side = np.array([self.config.side_of(s) for s in range(self.n)])
        shares = np.array([cfg.opp_self, cfg.opp_pool, cfg.opp_greedy, cfg.opp_random, cfg.opp_fixed], np.float64)
        self.shares = shares / shares.sum()
        self.rng = np.random.default_rng(np.random.SeedSequence([cfg.seed, 7]))
        capacity = cfg.num_steps * self.B + self.B * self.n
        check_rollout_fits(capacity, self.obs_dim, self.env.num_actions)
        self.buffer = Buffer(capacity, self.obs_dim, self.env.num_actions)
        self.opponent_net = None  # set by set_opponent()
        self.game_type = np.zeros(self.B, np.int64)
        self.learner = np.zeros((self.B, self.n), np.bool_)
        self.learner_side = np.zeros(self.B, np.int64)
        self._assign(np.arange(self.B))
        self.pending = np.full((self.B, self.n), -1, np.int64)  # slot of each seat's pending transition
        self.num_carry = 0
        self.env_steps = 0  # decisions made (all seats)
        self.timing = {"env": 0.0, "inference": 0.0, "bookkeeping": 0.0}
        # the opp_fixed games' agent, a batched twin (agents.batched) that sees every step of the env
        self.fixed = self._fixed_opponent(cfg) if cfg.opp_fixed > 0 else None
        self.results = self._no_results()  # learner outcome per finished game

    # -------------------------------------------------------------- opponents
    def _fixed_opponent(self, cfg):
        try:
            return make_batched_agent(cfg.fixed_opponent, self.env, seed=[cfg.seed, 11])
        except ValueError as exc:  # e.g. ppo:PATH whose file is missing: named as the config key the user set
            raise ConfigError(f"config key 'fixed_opponent' is {cfg.fixed_opponent!r}: {exc}") from None

    def _assign(self, games):
        """Draw the opponent type and the learner's seats of the games ``games``."""
        k = len(games)
        if k == 0:
            return
        types = self.rng.choice(len(self.shares), size=k, p=self.shares)
        sides = self.rng.integers(self.config.num_sides, size=k)
        self.game_type[games] = types
        self.learner_side[games] = sides
        learner = self.seat_side[None, :] == sides[:, None]
        learner[types == SELF] = True
        self.learner[games] = learner

    def learner_seat(self, game) -> int:
        """A seat of the learner's side in ``game`` (its first one)."""
        return int(np.flatnonzero(self.seat_side == self.learner_side[game])[0])

    def set_opponent(self, net: PolicyNet):
        """The snapshot that plays the ``pool`` games of the next rollout."""
        self.opponent_net = net

    # -------------------------------------------------------------- collection
    @torch.no_grad()
    def collect(self, net: PolicyNet) -> Batch:
        """Play ``num_steps`` steps in every game; return the trainable transitions with GAE."""
        cfg, B, buf = self.cfg, self.B, self.buffer
        base = self.num_carry
        buf.clear(base, base + cfg.num_steps * B)
        timing = self.timing
        rows = np.arange(B)
        out = self.out
        for t in range(cfg.num_steps):
            t0 = time.perf_counter()
            mover = out.to_move.copy()
            is_learner = self.learner[rows, mover]
            obs, mask = out.obs, out.mask
            actions = np.empty(B, np.int64)
            li = np.flatnonzero(is_learner)
            t1 = time.perf_counter()
            exclusions = None if self.exclusions is None else self.exclusions.relative(mover)
            inputs = self.policy_input(obs, mask, self._inputs, exclusions)
            legal = mask[li] > 0  # the learner rows' masks, once: forward pass, sampling and storage
            logits, values = self._forward(net, inputs[li], legal)
            a, logp = sample_actions(logits, legal, self.rng)
            actions[li] = a
            self._opponent_actions(out, np.flatnonzero(~is_learner), inputs, net, actions)
            t2 = time.perf_counter()
            self._store(base + t * B + li, li, mover[li], inputs[li], legal, a, logp, values)
            t3 = time.perf_counter()
            out = self._step(actions)
            t4 = time.perf_counter()
            self._credit(out)
            self.env_steps += B
            t5 = time.perf_counter()
            timing["inference"] += t2 - t1
            timing["env"] += t4 - t3
            timing["bookkeeping"] += (t1 - t0) + (t3 - t2) + (t5 - t4)
        self.out = out
        t0 = time.perf_counter()
        batch = self._finish(base + cfg.num_steps * B)
        timing["bookkeeping"] += time.perf_counter() - t0
        return batch

    def _opponent_actions(self, out, opp, inputs, net, actions):
        """``actions`` of the opponents' rows ``opp`` (single-choice ones included), by each game's opponent type."""
        if not len(opp):
            return
        obs, mask = out.obs, out.mask
        kinds = self.game_type[opp]
        pool = opp[kinds == POOL]
        if len(pool):
            pool_legal = mask[pool] > 0
            plogits, _ = self._forward(self.opponent_net or net, inputs[pool], pool_legal)
            actions[pool] = sample_actions(plogits, pool_legal, self.rng)[0]
        greedy = opp[kinds == GREEDY]
        if len(greedy):
            actions[greedy] = greedy_from_observations(obs[greedy], mask[greedy], self.points_offset,
                                                       np.empty(len(greedy), np.int64))
        rnd = opp[kinds == RANDOM]
        if len(rnd):
            actions[rnd] = random_actions(mask[rnd], self.rng)
        fixed = opp[kinds == FIXED]
        if len(fixed):
            actions[fixed] = self.fixed.actions(out, fixed, np.empty(len(fixed), np.int64))

    def _store(self, slots, games, seats, inputs, legal, actions, logprobs, values):
        """The learner's decisions into ``slots`` of the buffer, each linked to its seat's previous one."""
        buf = self.buffer
        buf.obs[slots] = inputs
        buf.mask[slots] = legal
        buf.actions[slots] = actions
        buf.logprobs[slots] = logprobs
        buf.values[slots] = values
        buf.valid[slots] = True
        buf.seat[slots] = seats
        buf.game[slots] = games
        prev = self.pending[games, seats]
        linked = prev >= 0
        buf.next_index[prev[linked]] = slots[linked]
        self.pending[games, seats] = slots

    def _step(self, actions):
        """Step every game, keeping the greedy exclusions and the fixed opponent's trackers in step."""
        for tracker in (self.exclusions, self.fixed):
            if tracker is not None:
                tracker.before_step(actions)
        out = self.env.step(actions)
        for tracker in (self.exclusions, self.fixed):
            if tracker is not None:
                tracker.after_step(out)
        return out

    def _forward(self, net, obs, legal):
        """``net``'s logits and values for ``obs`` (numpy), given the rows' legal masks (bool)."""
        logits, values = net(torch.from_numpy(obs).to(self.device), torch.from_numpy(legal).to(self.device))
        return logits.float().cpu().numpy(), values.float().cpu().numpy()

    def _credit(self, out):
        """Add this step's rewards to every pending learner transition; close ended games."""
        buf, cfg = self.buffer, self.cfg
        pb, ps = np.nonzero(self.pending >= 0)
        if cfg.reward_points:
            buf.rewards[self.pending[pb, ps]] += cfg.reward_points * out.rewards[pb, ps]
        ended = np.flatnonzero(out.terminated)
        if len(ended) == 0:
            return
        seat_value = out.final_outcome[ended]  # (E, n): +1 won, -1 lost, 0 drawn (the engine's R25)
        for k, b in enumerate(ended):
            for s in range(self.n):
                slot = self.pending[b, s]
                if slot >= 0:
                    buf.rewards[slot] += cfg.reward_win * seat_value[k, s]
                    buf.done[slot] = True
            kind = self.game_type[b]
            if kind != SELF:
                outcome = seat_value[k, self.learner_seat(b)]
                self.results[OPPONENT_TYPES[kind]].append(1.0 if outcome > 0 else (0.5 if outcome == 0 else 0.0))
        self.pending[ended] = -1
        self._assign(ended)

    def _finish(self, used) -> Batch:
        from .advantages import chain_gae

        buf, cfg = self.buffer, self.cfg
        adv, ret, trainable = chain_gae(buf.rewards[:used], buf.values[:used], buf.done[:used],
                                        buf.next_index[:used], cfg.gamma, cfg.gae_lambda, valid=buf.valid[:used])
        idx = np.flatnonzero(trainable)
        batch = Batch(buf.obs[idx].copy(), buf.mask[idx].copy(), buf.actions[idx].copy(), buf.logprobs[idx].copy(),
                      buf.values[idx].copy(), adv[idx].astype(np.float32), ret[idx].astype(np.float32),
                      buf.rewards[idx].astype(np.float32), buf.done[idx].copy(), buf.seat[idx].copy(), buf.game[idx].copy())
        # carry the pending transitions to the front of the buffer for the next rollout
        pb, ps = np.nonzero(self.pending >= 0)
        src = self.pending[pb, ps]
        order = np.argsort(src)  # keep time order
        src, pb, ps = src[order], pb[order], ps[order]
        dst = np.arange(len(src))
        buf.move(src, dst)
        self.pending[pb, ps] = dst
        self.num_carry = len(src)
        return batch

    def pop_results(self) -> dict:
        """Learner win rate per opponent type over the games finished since the last call."""
        res = {name: (float(np.mean(v)) if v else float("nan"), len(v)) for name, v in self.results.items()}
        self.results = self._no_results()
        return res

    def _no_results(self) -> dict:
        """An empty list per opponent type the games can have (``fixed`` only with ``opp_fixed`` > 0)."""
        return {name: [] for name in OPPONENT_TYPES[1:] if name != "fixed" or self.fixed is not None}

    # -------------------------------------------------------------- state for checkpoints
    def state_dict(self) -> dict:
        """Everything needed to continue collection exactly (environment included)."""
        return {"env": self.env.state_dict(), "rng": self.rng.bit_generator.state,
                "game_type": self.game_type, "learner": self.learner, "learner_side": self.learner_side,
                "pending": self.pending, "num_carry": self.num_carry, "env_steps": self.env_steps,
                "carry": {name: getattr(self.buffer, name)[:self.num_carry].copy()
                          for name in CARRIED},
                "exclusions": None if self.exclusions is None else self.exclusions.state_dict(),
                "fixed": None if self.fixed is None else self.fixed.state_dict()}

    def load_state_dict(self, state):
        self.env.load_state_dict(state["env"])
        self.out = self.env.current()
        self.rng.bit_generator.state = state["rng"]
        self.game_type, self.learner, self.learner_side = state["game_type"], state["learner"], state["learner_side"]
        self.pending, self.num_carry, self.env_steps = state["pending"], state["num_carry"], state["env_steps"]
        if self.exclusions is not None:
            self.exclusions.load_state_dict(state["exclusions"])
        if self.fixed is not None:
            self.fixed.load_state_dict(state["fixed"])
        for name, value in state["carry"].items():
            getattr(self.buffer, name)[:self.num_carry] = value
