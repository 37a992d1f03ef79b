"""Scratch: the champion's search with the PPO policy (argmax, compiled) playing every seat of the rollouts."""
import types
import numpy as np
from numba import njit
from allfives_env.agents.search import ChampionAgent
from allfives_env.agents import search_compiled as sc
from allfives_env.agents.ppo.agent import _load
from allfives_env.agents.ppo import features as pf
from allfives_env.compiled.encode import encode
from allfives_env.compiled.rules import apply_action, forced_action, side_of
from allfives_env.compiled.state import C_N, C_SIDES, C_DIVISOR, F_TARGET, HAND_OVER, OPTS, TO_MOVE, DRAW

def net_arrays(policy):
    (w1, b1), (w2, b2) = policy.layers
    ctx_w, ctx_b, tile, slot, feat_w, out_w, out_b, offsets, deep = policy.scorer
    f = lambda a: np.ascontiguousarray(a, np.float64)
    return (f(w1), f(b1), f(w2), f(b2), f(policy.head[0]), f(policy.head[1]), f(policy.direct), f(ctx_w), f(ctx_b),
            f(tile), f(slot), f(feat_w), f(out_w), np.array([float(out_b)]), offsets.astype(np.int64))


@njit(**OPTS)
def policy_logit_argmax(x, mask, net, nz, h1, h2, ctx):
    w1, b1, w2, b2, head_w, head_b, direct, ctx_w, ctx_b, tile_e, slot_e, feat_w, out_w, out_b, offsets = net
    D = x.shape[0]
    m = 0
    for i in range(D):
        if x[i] != 0.0:
            nz[m] = i
            m += 1
    H1 = b1.shape[0]
    for j in range(H1):
        h1[j] = b1[j]
    for k in range(m):
        i = nz[k]
        xi = x[i]
        for j in range(H1):
            h1[j] += xi * w1[i, j]
    for j in range(H1):
        if h1[j] < 0.0:
            h1[j] = 0.0
    H2 = b2.shape[0]
    for j in range(H2):
        h2[j] = b2[j]
    for i in range(H1):
        hi = h1[i]
        if hi != 0.0:
            for j in range(H2):
                h2[j] += hi * w2[i, j]
    for j in range(H2):
        if h2[j] < 0.0:
            h2[j] = 0.0
    W = ctx_b.shape[0]
    for j in range(W):
        ctx[j] = ctx_b[j]
    for i in range(H2):
        hi = h2[i]
        if hi != 0.0:
            for j in range(W):
                ctx[j] += hi * ctx_w[i, j]
    best_a, best = -1, -1e300
    K = offsets.shape[0]
    for a in range(DRAW):
        if mask[a] == 0:
            continue
        logit = head_b[a]
        for i in range(H2):
            logit += h2[i] * head_w[i, a]
        for k in range(m):
            logit += x[nz[k]] * direct[nz[k], a]
        t, s = a >> 2, a & 3
        score = out_b[0]
        for j in range(W):
            v = ctx[j] + tile_e[t, j] + slot_e[s, j]
            for k in range(K):
                v += x[offsets[k] + a] * feat_w[k, j]
            if v > 0.0:
                score += v * out_w[j]
        logit += score
        if logit > best:
            best, best_a = logit, a
    return best_a


@njit(**OPTS)
def policy_rollout(wst, r, whands, wscores, wgains, cfg, fcfg, off, target, obs, mask, x, foff, blocks, excl, net,
                   nz, h1, h2, ctx):
    n = cfg[C_N]
    divisor = cfg[C_DIVISOR]
    while not wst[r, HAND_OVER]:
        a = forced_action(wst, r, whands)
        if a < 0:
            seat = wst[r, TO_MOVE]
            encode(wst, r, whands, wscores, seat, True, cfg, fcfg, off, obs, mask)
            pf._reply_features(obs[r:r + 1], mask[r:r + 1], foff, n, divisor, pf._LOW, pf._HIGH, pf._SUIT_TILES,
                               blocks, pf._CHOOSE, excl, x)
            a = policy_logit_argmax(x[0], mask[r], net, nz, h1, h2, ctx)
        apply_action(wst, r, whands, wscores, wgains, cfg, target, a)


@njit(**OPTS)
def policy_values(st, hands, scores, b, cfg, fcfg, off, samples, win_value, attempts, rng, wst, whands, wscores,
                  wgains, legal, values, tiles, before, forbid, obs, mask, x, foff, blocks, excl, net, nz, h1, h2,
                  ctx):
    n_legal = sc.legal_placements(st, b, hands, legal)
    if n_legal == 0:
        return 0
    n = cfg[C_N]
    target = fcfg[F_TARGET]
    seat = st[b, TO_MOVE]
    side = side_of(seat, n)
    for k in range(n_legal):
        values[k] = 0.0
    for s in range(scores.shape[1]):
        before[s] = scores[b, s]
    for _ in range(samples):
        sc.draw_world(st, hands, scores, b, seat, n, wst, whands, wscores, 0, rng, 0, tiles, attempts, forbid, forbid)
        for k in range(n_legal):
            sc.copy_game(wst, whands, wscores, 0, wst, whands, wscores, 1)
            apply_action(wst, 1, whands, wscores, wgains, cfg, target, legal[k])
            policy_rollout(wst, 1, whands, wscores, wgains, cfg, fcfg, off, target, obs, mask, x, foff, blocks, excl,
                           net, nz, h1, h2, ctx)
            values[k] += sc.outcome_value(wst, 1, wscores, cfg[C_SIDES], side, before, win_value)
    for k in range(n_legal):
        values[k] /= samples
    return n_legal


def _values(self, st, hands, scores, b, cfg, fcfg, forbid=None):
    n = policy_values(st, hands, scores, b, cfg, fcfg, self.off, self.samples, self.win_value, self.attempts,
                      self.rng, self.wst, self.whands, self.wscores, self.wgains, self.legal, self.out, self.tiles,
                      self.before, self.no_forbid, self.obs, self.mask, self.x, self.foff, self.blocks, self.excl,
                      self.net, self.nz, self.h1, self.h2, self.ctx)
    if self.pw:
        sc.heuristic_values(st, b, hands, scores, cfg, fcfg[F_TARGET], self.legal, n, sc.HEURISTIC_WEIGHTS,
                            self.wst, self.whands, self.wscores, 2, self.replies, self.prior)
        for k in range(n):
            self.out[k] += self.pw * min(self.prior[k], 1e3)
    return self.legal[:n].copy(), self.out[:n].copy()


class ChampP(ChampionAgent):
    name = "champp"

    def __init__(self, path="checkpoints/ppo_2p.pt", samples=None, prior_weight=1.0):
        super().__init__(samples=samples, prior_weight=prior_weight)
        rules, features, policy = _load(path)
        self.pinput = pf.PolicyInput(features, rules.num_players, rules.divisor)
        self.net = net_arrays(policy)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        c = self._compiled
        s = c.searcher
        s.off = c.off
        s.pw = self.prior_weight
        s.obs = np.zeros((3, self.pinput.obs_dim), np.float32)
        s.mask = np.zeros((3, 114), np.int8)
        s.x = np.zeros((1, self.pinput.size), np.float32)
        s.foff = self.pinput._off
        s.blocks = pf._BLOCKS[self.pinput.features]
        s.excl = np.zeros((1, 4), np.int64)
        s.net = self.net
        H = self.net[1].shape[0]
        s.nz = np.zeros(self.pinput.size, np.int64)
        s.h1 = np.zeros(H); s.h2 = np.zeros(self.net[3].shape[0]); s.ctx = np.zeros(self.net[8].shape[0])
        s.values = types.MethodType(_values, s)
