"""Scratch: the 4-player champion whose partner reading adds a learned belief of the partner's hand.

``belief:Belief:lam=1,heur=1`` -- each candidate world's log-weight := heur * (the heuristic reading's
log-likelihood) + lam * sum over the partner's tiles in that world of logit(p_tile), p from bnet.npz
(fit_belief.py: the value file's inputs -> the partner's 28 tiles).
"""
import os
import numpy as np

import allfives_env.agents.champion as ch
from allfives_env.agents.hand_reading import HandReader
from allfives_env.agents.ppo.agent import PPOAgent

NET = os.environ.get("BELIEF_NET", "/work/scratch/belief/bnet.npz")
_BITS = np.arange(28, dtype=np.int64)


class Net:
    def __init__(self, path):
        d = np.load(path)
        self.mean, self.std = d["mean"], d["std"]
        self.layers = [(d[f"w{i}"], d[f"b{i}"]) for i in range(3)]

    def logits(self, x):
        h = (x - self.mean) / self.std
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < 2:
                h = np.maximum(h, 0)
        return h


class BeliefReader(HandReader):
    def read(self, view, cfg, target):
        super().read(view, cfg, target)
        x = np.append(self.encoder.input_vector(view, self.legal_now), 1.0).astype(np.float32)
        logit = np.clip(self.net.logits(x), -4.0, 4.0)
        partner = (view.seat + 2) % 4
        bits = (self.bhands[:, partner][:, None] >> _BITS) & 1
        ll = self.heur * self.loglik + self.lam * (bits @ logit)
        top = ll.max()
        np.exp(ll - top, out=self.weights)


class Belief(ch.ChampionAgent):
    _net = None
    _encoder = None

    def __init__(self, lam=1.0, heur=1.0, **kw):
        super().__init__(**kw)
        self.lam, self.heur = float(lam), float(heur)
        if Belief._net is None:
            Belief._net = Net(NET)
            Belief._encoder = PPOAgent("checkpoints/champion_value_4p.pt")

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        assert self.reader is not None and config.num_players == 4
        self.reader.__class__ = BeliefReader
        self.reader.net, self.reader.encoder = Belief._net, Belief._encoder
        self.reader.lam, self.reader.heur = self.lam, self.heur

    def action_values(self, view, legal_actions):
        self.reader.legal_now = list(legal_actions)
        return super().action_values(view, legal_actions)
