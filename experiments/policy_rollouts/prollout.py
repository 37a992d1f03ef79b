"""Experiment: the 4-player champion with rollouts played by ppo_4p.pt (every seat, argmax) instead of,
or beside, the heuristic's. Scratch code, not the product."""
import numpy as np
from numba import njit

from allfives_env.agents.champion import ChampionAgent, LeafValues, apply_rows, start_trials
from allfives_env.agents.registry import shipped_file
from allfives_env.agents.search_compiled import HEURISTIC_WEIGHTS, heuristic_values, load_view, outcome_value
from allfives_env.compiled.rules import apply_action, legal_placements
from allfives_env.compiled.state import F_TARGET, HAND_OVER, NUM_FIELDS, OPTS
from allfives_env.compiled.step import play_forced


@njit(**OPTS)
def advance_rollouts(rows, xst, xhands, xscores, xgains, cfg, target, waiting, legal):
    """Forced moves and single legal placements played (the policy's argmax would play them too)."""
    need = 0
    for r in range(rows):
        if not waiting[r]:
            continue
        while True:
            play_forced(xst, r, xhands, xscores, xgains, cfg, target)
            if xst[r, HAND_OVER] or legal_placements(xst, r, xhands, legal) != 1:
                break
            apply_action(xst, r, xhands, xscores, xgains, cfg, target, legal[0])
        if xst[r, HAND_OVER]:
            waiting[r] = 0
        else:
            need += 1
    return need


@njit(**OPTS)
def rollout_outcomes(rows, xst, xscores, sides, side, before, win_value, out):
    for r in range(rows):
        out[r] = outcome_value(xst, r, xscores, sides, side, before, win_value)


class PolicyRollouts(LeafValues):
    """Each placement in ``worlds`` worlds (the reader's bank), the hand played out by the policy's argmax."""

    one_legal = np.zeros(112, np.int64)

    def values(self, view, reader, win_value):
        with self._blas.limit(limits=1, user_api="blas"):
            load_view(view, self.st, self.hands, self.scores)
            n_legal = legal_placements(self.st, 0, self.hands, self.legal)
            legal = self.legal[:n_legal].copy()
            bst, bhands, bscores, rows = self.no_bank if reader is None else reader.bank(self.worlds)
            start_trials(self.st, self.hands, self.scores, view.seat, view.num_players, self.worlds, legal, n_legal,
                         self.world_rng, self.tiles, self.no_forbid, self.cfg, self.fcfg[F_TARGET], self.xst,
                         self.xhands, self.xscores, self.xgains, bst, bhands, bscores, rows)
            total = self.worlds * n_legal
            target = self.fcfg[F_TARGET]
            self.waiting[:total] = 1
            while advance_rollouts(total, self.xst, self.xhands, self.xscores, self.xgains, self.cfg, target,
                                   self.waiting, self.one_legal):
                live = np.flatnonzero(self.waiting[:total])
                x = self._inputs(live)
                mask = self.mask[live]
                logits = self.policy.batch_logits(x, mask)
                logits[mask == 0] = -np.inf
                apply_rows(live, np.argmax(logits, axis=1).astype(np.int64), self.xst, self.xhands, self.xscores,
                           self.xgains, self.cfg, target)
            rollout_outcomes(total, self.xst, self.xscores, self.config.num_sides, view.side,
                             np.asarray(view.scores, np.float64), win_value, self.returns)
            return legal, self.returns[:total].reshape(self.worlds, n_legal).mean(axis=0)


class ChampionPolicyRollouts(ChampionAgent):
    """mode ``replace``: the heuristic rollouts' values replaced by the policy's; ``mix``: their mean."""

    def __init__(self, mode="replace", pworlds=32, rollout_policy="checkpoints/ppo_4p.pt", **kw):
        super().__init__(**kw)
        self.mode, self.pworlds, self.rollout_policy = mode, pworlds, rollout_policy
        self.prollouts = None  # made at reset: a LeafValues cannot be deep-copied
        from allfives_env.agents.ppo.agent import load_numpy_policy
        load_numpy_policy(shipped_file(rollout_policy))  # read before the arena forks (torch after a fork hangs)
        self.pst, self.phands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.plegal, self.pout = np.zeros(112, np.int64), np.zeros(112, np.float64)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        if self.prollouts is None:
            self.prollouts = PolicyRollouts(shipped_file(self.rollout_policy), worlds=self.pworlds)
        self.prollouts.reset(config, rng)
        self.pscores = np.zeros((1, config.num_sides), np.float64)
        self.lst, self.lhands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.lscores, self.lreplies = np.zeros((1, config.num_sides), np.float64), np.zeros(28, np.float64)

    def _heuristic_prior(self, view):
        search = self._compiled
        load_view(view, self.pst, self.phands, self.pscores)
        n = legal_placements(self.pst, 0, self.phands, self.plegal)
        heuristic_values(self.pst, 0, self.phands, self.pscores, search.cfg, search.fcfg[F_TARGET], self.plegal, n,
                         HEURISTIC_WEIGHTS, self.lst, self.lhands, self.lscores, 0, self.lreplies, self.pout)
        return dict(zip(self.plegal[:n].tolist(), np.minimum(self.pout[:n], 1e3).tolist()))

    def action_values(self, view, legal_actions) -> list:
        search = self._compiled
        self.reader.read(view, search.cfg, search.fcfg[F_TARGET])
        prior = self._heuristic_prior(view)
        placements, prolls = self.prollouts.values(view, self.reader, search.searcher.win_value)
        pvalue = dict(zip(placements.tolist(), prolls.tolist()))
        if self.mode == "replace":
            values = [pvalue[a] + self.prior_weight * prior[a] for a in legal_actions]
        else:
            searched = search.action_values(view, list(legal_actions), self.reader.bank(self._samples))
            values = [0.5 * (s - self.prior_weight * prior[a]) + 0.5 * pvalue[a] + self.prior_weight * prior[a]
                      for s, a in zip(searched, legal_actions)]
        placements, leaf = self.leaf_values.values(view, self.reader)
        by_action = dict(zip(placements.tolist(), leaf.tolist()))
        return [v + self.value_weight * by_action[a] for v, a in zip(values, legal_actions)]
