"""Scratch: the 4-player champion reading its partner with heuristic + policy (a conditional logit fitted
to the champion's own choices: a * heuristic points + b * ppo_4p.pt logits, floor 0.05). Not product."""
import numpy as np
from numba import njit

from allfives_env.agents.champion import ChampionAgent
from allfives_env.agents.hand_reading import (READ_FLOOR, HandReader, draw_read_worlds, read_placements,
                                              readable_seats)
from allfives_env.agents.ppo.agent import load_numpy_policy
from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.agents.search_compiled import HEURISTIC_WEIGHTS, copy_game, heuristic_values, load_view
from allfives_env.compiled.encode import encode
from allfives_env.compiled.rules import legal_placements
from allfives_env.compiled.state import NUM_FIELDS, OPTS, kernel_config
from allfives_env.env.encoders import default_layout
from allfives_env.rules.actions import DRAW, NUM_ACTIONS

POLICY = "/work/main/checkpoints/ppo_4p.pt"


@njit(**OPTS)
def fill_pairs(C, count, bhands, est, ehands, escores, mover, chosen, later, cfg, fcfg, off, target,
               pst, phands, pscores, legal, values, lst, lhands, lscores, replies,
               H, L, NL, PICK, obs, mask, valid):
    """Pair r = w * count + k: the partner's position before placement k had it held world w's hand."""
    for w in range(C):
        for k in range(count):
            r = w * count + k
            s = mover[k]
            copy_game(est, ehands, escores, k, pst, phands, pscores, r)
            phands[r, s] = bhands[w, s] | later[k]
            n_legal = legal_placements(pst, r, phands, legal)
            NL[r] = n_legal
            valid[r] = 0
            PICK[r] = -1
            for j in range(n_legal):
                if legal[j] == chosen[k]:
                    PICK[r] = j
            if n_legal <= 1:
                continue
            if PICK[r] < 0:
                continue  # impossible with this hand: -inf, handled by the caller
            heuristic_values(pst, r, phands, pscores, cfg, target, legal, n_legal, HEURISTIC_WEIGHTS, lst, lhands,
                             lscores, 0, replies, values)
            for j in range(n_legal):
                H[r, j] = min(values[j], 1e3)
                L[r, j] = legal[j]
            encode(pst, r, phands, pscores, s, True, cfg, fcfg, off, obs, mask)
            valid[r] = 1


class PolicyReader(HandReader):
    def __init__(self, num_sides, seed, a, b, config, **kw):
        super().__init__(num_sides, seed, **kw)
        self.a, self.b = float(a), float(b)
        C = self.candidates
        P = C * 28
        self.pst, self.phands = np.zeros((P, NUM_FIELDS), np.int8), np.zeros((P, 8), np.int64)
        self.pscores = np.zeros((P, num_sides), np.float64)
        self.H, self.L = np.zeros((P, DRAW)), np.zeros((P, DRAW), np.int64)
        self.NL, self.PICK, self.valid = (np.zeros(P, np.int64) for _ in range(3))
        layout = default_layout(config.num_players)
        self.cfg, self.fcfg, self.off = kernel_config(config, layout, "game", "points", False)
        self.obs = np.zeros((P, layout.size), np.float32)
        self.mask = np.zeros((P, NUM_ACTIONS), np.int8)
        _, features, self.policy = load_numpy_policy(POLICY)
        base = features[:-len("_infer")] if features.endswith("_infer") else features
        self.input = PolicyInput(base, config.num_players, config.divisor)
        self.zero_loglik = np.zeros(self.candidates)

    def read(self, view, cfg, target):
        load_view(view, self.st, self.hands, self.scores)
        events = np.array([(e[0], e[1], e[3]) for e in view.events], np.float64).reshape(-1, 3)
        readable = readable_seats(view.seat, view.num_players, self.partner_only)
        self.count = read_placements(self.st, self.hands, self.scores, view.seat, view.num_players, readable,
                                     events[:, 0].astype(np.int64), events[:, 1].astype(np.int64), events[:, 2],
                                     len(events), np.asarray(view.hand_start_scores, np.float64), self.sizes,
                                     self.last_draw, self.est, self.ehands, self.escores, self.mover, self.chosen,
                                     self.later)
        # the worlds alone (count 0: no likelihood), the same draws as the heuristic reader
        draw_read_worlds(self.st, self.hands, self.scores, view.seat, view.num_players, self.candidates, self.bst,
                         self.bhands, self.bscores, self.rng, self.tiles, self.no_forbid, 0, self.est,
                         self.ehands, self.escores, self.mover, self.chosen, self.later, cfg, target, 1.0,
                         self.floor, self.legal, self.values, self.lst, self.lhands, self.lscores, self.replies,
                         self.loglik)
        C, K = self.candidates, self.count
        self.loglik[:] = 0.0
        if K:
            fill_pairs(C, K, self.bhands, self.est, self.ehands, self.escores, self.mover, self.chosen, self.later,
                       cfg, self.fcfg, self.off, target, self.pst, self.phands, self.pscores, self.legal,
                       self.values, self.lst, self.lhands, self.lscores, self.replies, self.H, self.L, self.NL,
                       self.PICK, self.obs, self.mask, self.valid)
            P = C * K
            NL, PICK, valid = self.NL[:P], self.PICK[:P], self.valid[:P]
            impossible = (NL > 1) & (PICK < 0)
            rows = np.flatnonzero(valid)
            ll = np.zeros(P)
            if len(rows):
                width = int(NL[rows].max())
                H = self.H[rows, :width]
                Lg = self.L[rows, :width]
                z = self.a * H
                if self.b:
                    x = self.input(self.obs[rows], self.mask[rows])
                    logits = self.policy.batch_logits(x, self.mask[rows])
                    z = z + self.b * np.take_along_axis(logits, Lg, axis=1)
                cols = np.arange(width)[None, :]
                live = cols < NL[rows][:, None]
                z = np.where(live, z, -np.inf)
                top = z.max(axis=1, keepdims=True)
                e = np.exp(z - top)
                p = e / e.sum(axis=1, keepdims=True)
                pick = p[np.arange(len(rows)), PICK[rows]]
                ll[rows] = np.log((1.0 - self.floor) * pick + self.floor / NL[rows])
            ll[impossible] = -np.inf
            self.loglik[:] = ll.reshape(C, K).sum(axis=1)
        top = self.loglik.max()
        if np.isfinite(top):
            np.exp(self.loglik - top, out=self.weights)
        else:
            self.weights[:] = 1.0


class ChampionPR(ChampionAgent):
    """champion with the partner read by a * heuristic + b * policy logits (a=0.5, b=0: the shipped reader)."""

    def __init__(self, a=0.5, b=0.0, **kw):
        super().__init__(**kw)
        self.a, self.b = float(a), float(b)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        if self.reader is not None:
            old = self.reader
            self.reader = PolicyReader(config.num_sides, 0, self.a, self.b, config, partner_only=old.partner_only)
            self.reader.rng[:] = old.rng
