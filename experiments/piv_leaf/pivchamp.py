"""Scratch: the champion with a perfect-information leaf value (the sampled world's hands as inputs)."""
import numpy as np
from allfives_env.agents.champion import ChampionAgent, LeafValues, GAMMA, POINTS_PER_RETURN, _OWN_DECISION, trial_returns

_NETS = {}


def load_net(path):
    if path not in _NETS:
        d = np.load(path)
        layers, i = [], 0
        while f"w{i}" in d:
            layers.append((d[f"w{i}"].astype(np.float32), d[f"b{i}"].astype(np.float32)))
            i += 1
        _NETS[path] = (layers, d["mean"].astype(np.float32), d["std"].astype(np.float32), bool(d["use_h"]))
    return _NETS[path]


def forward(net, x):
    layers, mean, std, _ = net
    h = (x - mean) / std
    for j, (w, b) in enumerate(layers):
        h = h @ w + b
        if j < len(layers) - 1:
            h = np.maximum(h, 0)
    return h[:, 0]


class PivLeaf(LeafValues):
    def __init__(self, path, net, mode, **kw):
        super().__init__(path, **kw)
        self.net, self.mode = load_net(net), mode

    def trial_values(self, rows, seat, side, before):
        target = self.fcfg[0] if False else None
        from allfives_env.compiled.state import F_TARGET
        target = self.fcfg[F_TARGET]
        self.waiting[:rows] = 1
        while self._advance(rows, seat, target):
            self._answer(np.flatnonzero(self.waiting[:rows]), target)
        trial_returns(rows, self.xst, self.xscores, side, self.config.num_sides, np.asarray(before, np.float64),
                      1.0 / POINTS_PER_RETURN, self.returns)
        q = self.returns[:rows].copy()
        leaves = np.flatnonzero(self.status[:rows] == _OWN_DECISION)
        if len(leaves):
            x = self._inputs(leaves)
            n = self.config.num_players
            parts = [x]
            if self.net[3]:
                hb = np.zeros((len(leaves), (n - 1) * 28))
                for r in range(1, n):
                    m = self.xhands[leaves, (seat + r) % n]
                    hb[:, (r - 1) * 28:r * 28] = (m[:, None] >> np.arange(28)[None, :]) & 1
                parts.append(hb)
            parts.append(np.ones((len(leaves), 1)))
            v = forward(self.net, np.hstack(parts).astype(np.float32)).astype(np.float64)
            if self.mode == "add":
                v = 0.5 * (v + self.policy.values(x))
            q[leaves] += GAMMA * v
        return q


class PivChampion(ChampionAgent):
    def __init__(self, net, mode="replace", **kw):
        super().__init__(**kw)
        self._piv = (net, mode)

    def reset(self, seat, config, rng):
        key = ("piv", config.num_players)
        if key not in self._leaf_values:
            from allfives_env.agents.champion import CHAMPION_VALUE, resolve_policy_path
            self._leaf_values[key] = PivLeaf(resolve_policy_path(CHAMPION_VALUE[config.num_players]),
                                             self._piv[0], self._piv[1])
        self._leaf_values_for = lambda players: self._leaf_values[("piv", players)]
        super().reset(seat, config, rng)
