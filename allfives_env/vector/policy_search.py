"""The compiled search with a learned policy playing the searching side in its rollouts.

:mod:`allfives_env.agents.search_compiled` values a placement by playing the hand out
with the greedy policy for every seat. Here the rollouts play the searching
side's seats (the seat to move and, with 4 players, its partner) with a
trained PPO policy (:class:`~allfives_env.agents.ppo.PPOAgent`, its most likely
placement) and every other seat with greedy. Everything else is the compiled
search's: the same sampled worlds (:func:`~allfives_env.agents.search_compiled.deal_hidden`),
common random numbers across the placements, the same value (the side's points
minus the other sides' mean over the rest of the hand, plus or minus
``win_value`` when the game ends) and the heuristic prior times ``prior_weight``.

The rollouts are batched: all ``samples x placements`` trial games advance
together, each to its side's next decision with a choice (greedy moves, forced
draws and passes and single legal placements are played inside the kernel),
and one forward pass of the policy answers every trial waiting there. The
policy sees each trial position as its seat would (the kernels' encoder, equal
to :class:`~allfives_env.encoders.DefaultEncoder`, and the checkpoint's derived
features), never the sampled hidden hands. A policy trained with greedy
exclusions (``features=*_infer``) plays here without them: a trial
position carries no hand history to infer them from (``search:policy=`` loads
it with ``infer=off``).
"""

import numpy as np
from numba import njit

from ..compiled.encode import encode
from ..compiled.rules import apply_action, forced_action, side_of
from ..compiled.state import C_DIVISOR, C_N, C_SIDES, DRAW, F_TARGET, HAND_OVER, NUM_ACTIONS, NUM_FIELDS, OPTS, TO_MOVE
from ..agents.search_compiled import (HEURISTIC_WEIGHTS, SearchScratch, copy_game, draw_world, greedy_move, heuristic_values,
                     legal_placements, outcome_value)




@njit(**OPTS)
def spawn_trials(st, hands, scores, b, cfg, target, samples, legal, n_legal, attempts, rng, tiles,
                 tst, thands, tscores, tgains, forbid, no_forbid):
    """Rows ``w * n_legal + k`` of the trial arrays := world ``w`` (hidden tiles redrawn as the seat to move
    in game ``b`` sees them; ``forbid``, ``no_forbid`` as in :func:`~allfives_env.agents.search_compiled.draw_world`) after
    placement ``legal[k]``. Row ``samples * n_legal`` is scratch."""
    n = cfg[C_N]
    seat = st[b, TO_MOVE]
    world = samples * n_legal
    r = 0
    for _ in range(samples):
        draw_world(st, hands, scores, b, seat, n, tst, thands, tscores, world, rng, 0, tiles, attempts, forbid,
                   no_forbid)
        for k in range(n_legal):
            copy_game(tst, thands, tscores, world, tst, thands, tscores, r)
            apply_action(tst, r, thands, tscores, tgains, cfg, target, legal[k])
            r += 1


@njit(**OPTS)
def advance_to_choice(tst, thands, tscores, tgains, cfg, fcfg, off, rows, side, obs, mask, asking):
    """Play each of the first ``rows`` trials on until its hand is over or a seat of ``side`` has a choice
    of placements: greedy moves for the other sides, forced draws and passes and single legal
    placements for ``side``. Each trial left at a choice gets its mover's observation and mask
    (rows of ``obs``/``mask``) and its index in ``asking``; returns how many."""
    n = cfg[C_N]
    divisor = cfg[C_DIVISOR]
    target = fcfg[F_TARGET]
    waiting = 0
    for r in range(rows):
        while not tst[r, HAND_OVER]:
            seat = tst[r, TO_MOVE]
            if side_of(seat, n) != side:
                apply_action(tst, r, thands, tscores, tgains, cfg, target, greedy_move(tst, r, thands, divisor))
                continue
            forced = forced_action(tst, r, thands)
            if forced >= 0:
                apply_action(tst, r, thands, tscores, tgains, cfg, target, forced)
                continue
            encode(tst, r, thands, tscores, seat, True, cfg, fcfg, off, obs, mask)
            only, count = -1, 0
            for a in range(DRAW):
                if mask[r, a]:
                    only = a
                    count += 1
            if count == 1:
                apply_action(tst, r, thands, tscores, tgains, cfg, target, only)
                continue
            asking[waiting] = r
            waiting += 1
            break
    return waiting


@njit(**OPTS)
def apply_choices(tst, thands, tscores, tgains, cfg, target, asking, waiting, actions):
    """Trial ``asking[i]`` plays ``actions[i]`` (the policy's answers), for the first ``waiting``."""
    for i in range(waiting):
        apply_action(tst, asking[i], thands, tscores, tgains, cfg, target, actions[i])


@njit(**OPTS)
def trial_values(tst, tscores, cfg, samples, n_legal, side, before, win_value, values):
    """``values[k]``: placement ``k``'s mean over the worlds of its side's points minus the other sides'
    mean since ``before``, plus ``win_value`` if the game was won (minus it if lost): rollout_value's
    measure, read from the finished trials."""
    sides = cfg[C_SIDES]
    for k in range(n_legal):
        values[k] = 0.0
    r = 0
    for _ in range(samples):
        for k in range(n_legal):
            values[k] += outcome_value(tst, r, tscores, sides, side, before, win_value)
            r += 1
    for k in range(n_legal):
        values[k] /= samples


class PolicySearcher(SearchScratch):
    """Scratch buffers, a random stream and the policy for a search with policy rollouts.

    ``values(st, hands, scores, b, cfg, fcfg, off)`` -> ``(legal placements, values)`` for the seat to
    move in game ``b`` (the arrays of a batched environment or of :func:`~allfives_env.agents.search_compiled.load_view`),
    as :meth:`allfives_env.agents.search_compiled.Searcher.values`, with ``policy`` (a
    :class:`~allfives_env.agents.ppo.PPOAgent` reset for these rules) playing the side of the seat
    to move in the rollouts."""

    def __init__(self, policy, num_sides, samples=48, win_value=100.0, prior_weight=1.0, seed=0, attempts=50):
        from ..agents.ppo.features import PolicyInput

        super().__init__(num_sides, samples, win_value, prior_weight, seed, attempts)
        self.policy = policy
        self.policy_input = PolicyInput(policy.features, policy.num_players, policy.rules.divisor)
        self.rows = 0
        self.reserve(self.samples * 8)

    def reserve(self, rows):
        """Trial buffers for ``rows`` trials (plus the world row and the heuristic's layout row)."""
        if rows <= self.rows:
            return
        self.rows = rows
        self.tst = np.zeros((rows + 2, NUM_FIELDS), np.int8)
        self.thands = np.zeros((rows + 2, 8), np.int64)
        self.tscores = np.zeros((rows + 2, self.num_sides), np.float64)
        self.tgains = np.zeros((rows + 2, self.num_sides), np.float64)
        self.obs = np.zeros((rows, self.policy_input.obs_dim), np.float32)
        self.mask = np.zeros((rows, NUM_ACTIONS), np.int8)
        self.asking = np.zeros(rows, np.int64)

    def play_out(self, trials, side, cfg, fcfg, off):
        """Play the first ``trials`` rows of the trial arrays to the end of their hand: the policy's most
        likely placement for the seats of ``side``, greedy for the others; one batched forward pass
        per round of waiting trials."""
        while True:
            waiting = advance_to_choice(self.tst, self.thands, self.tscores, self.tgains, cfg, fcfg, off, trials,
                                        side, self.obs, self.mask, self.asking)
            if waiting == 0:
                return
            asking = self.asking[:waiting]
            mask = self.mask[asking]
            actions = self.policy.best_placements(self.policy_input(self.obs[asking], mask), mask)
            apply_choices(self.tst, self.thands, self.tscores, self.tgains, cfg, fcfg[F_TARGET], asking, waiting,
                          actions)

    def values(self, st, hands, scores, b, cfg, fcfg, off, forbid=None):
        n_legal = legal_placements(st, b, hands, self.legal)
        if n_legal == 0:
            return self.legal[:0].copy(), self.out[:0].copy()
        n = cfg[C_N]
        side = side_of(st[b, TO_MOVE], n)
        target = fcfg[F_TARGET]
        trials = self.samples * n_legal
        self.reserve(trials)
        self.before[:] = scores[b]
        spawn_trials(st, hands, scores, b, cfg, target, self.samples, self.legal, n_legal, self.attempts, self.rng,
                     self.tiles, self.tst, self.thands, self.tscores, self.tgains,
                     self.no_forbid if forbid is None else forbid, self.no_forbid)
        self.play_out(trials, side, cfg, fcfg, off)
        trial_values(self.tst, self.tscores, cfg, self.samples, n_legal, side, self.before, self.win_value, self.out)
        if self.prior_weight != 0.0:
            layout_row = trials + 1
            heuristic_values(st, b, hands, scores, cfg, target, self.legal, n_legal, HEURISTIC_WEIGHTS, self.tst,
                             self.thands, self.tscores, layout_row, self.replies, self.prior)
            self.out[:n_legal] += self.prior_weight * np.minimum(self.prior[:n_legal], 1e3)
        return self.legal[:n_legal].copy(), self.out[:n_legal].copy()
