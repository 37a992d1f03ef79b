"""How much weight each reading puts on the partner's true tiles: the log-loss (nats, summed over the
tiles the reader cannot see) of 'the partner holds t' under the weighted candidate worlds; uniform,
heuristic (the shipped reader), heuristic + policy. Scratch."""
import sys
import numpy as np
import allfives_env.arena.game as arena_game
from allfives_env.rules import RulesConfig
from allfives_env.arena import run_match
from preader import ChampionPR, PolicyReader

CURRENT = {}
_real = arena_game.player_view


def spy(game, seat):
    CURRENT["game"] = game
    return _real(game, seat)


arena_game.player_view = spy
MODELS = {"uniform": (0.0, 0.0), "heuristic": (0.5, 0.0), "heuristic+policy": (0.245, 0.162), "policy": (0.0, 0.206)}
LOSS = {k: [] for k in MODELS}


class MeasuringReader(PolicyReader):
    def read(self, view, cfg, target):
        super().read(view, cfg, target)  # plays with the weights of (a, b) = the shipped reader
        if self.count == 0:
            return
        game = CURRENT["game"]
        partner = (view.seat + 2) % 4
        truth = game.hands[partner]
        unseen = [t for t in range(28) if (view.unseen >> t) & 1]
        for name, ll in self.model_logliks().items():
            w = np.exp(ll - ll.max())
            w /= w.sum()
            loss = 0.0
            for t in unseen:
                held = ((self.bhands[:, partner] >> t) & 1).astype(float)
                p = float(np.clip((w * held).sum(), 1e-6, 1 - 1e-6))
                y = (truth >> t) & 1
                loss -= np.log(p) if y else np.log(1 - p)
            LOSS[name].append(loss)

    def model_logliks(self):
        out = {}
        saved = (self.a, self.b)
        for name, (a, b) in MODELS.items():
            self.a, self.b = a, b
            out[name] = self._loglik_only()
        self.a, self.b = saved
        return out

    def _loglik_only(self):
        C, K = self.candidates, self.count
        P = C * K
        NL, PICK, valid = self.NL[:P], self.PICK[:P], self.valid[:P]
        impossible = (NL > 1) & (PICK < 0)
        rows = np.flatnonzero(valid)
        ll = np.zeros(P)
        if len(rows):
            width = int(NL[rows].max())
            z = self.a * self.H[rows, :width]
            if self.b:
                x = self.input(self.obs[rows], self.mask[rows])
                logits = self.policy.batch_logits(x, self.mask[rows])
                z = z + self.b * np.take_along_axis(logits, self.L[rows, :width], axis=1)
            live = np.arange(width)[None, :] < NL[rows][:, None]
            z = np.where(live, z, -np.inf)
            e = np.exp(z - z.max(axis=1, keepdims=True))
            p = e / e.sum(axis=1, keepdims=True)
            pick = p[np.arange(len(rows)), PICK[rows]]
            ll[rows] = np.log((1.0 - self.floor) * pick + self.floor / NL[rows])
        ll[impossible] = -np.inf
        return ll.reshape(C, K).sum(axis=1)


class MeasuringChampion(ChampionPR):
    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        if self.reader is not None:
            old = self.reader
            self.reader = MeasuringReader(config.num_sides, 0, self.a, self.b, config, partner_only=True)
            self.reader.rng[:] = old.rng
            self.reader.count_stamp = 0


games, seed = int(sys.argv[1]), int(sys.argv[2])
run_match(RulesConfig(num_players=4), [MeasuringChampion(a=0.5, b=0.0), "search:engine=compiled"], games=games, seed=seed)
n = len(LOSS["uniform"])
base = np.array(LOSS["uniform"])
for k, v in LOSS.items():
    v = np.array(v)
    d = base - v
    print(f"{k:18s} {v.mean():.3f} nats per decision; below uniform by {d.mean():+.3f} +- {1.96*d.std(ddof=1)/np.sqrt(n):.3f} ({n} decisions)")
