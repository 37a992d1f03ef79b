"""Scratch oracle: how much is one fact about the partner's hand worth to the 4-player champion?

``sig:Told:fact=longest`` -- the partner reading also keeps only the candidate worlds whose partner held, at
the hand's start, the same longest suit as the true partner (ties: the higher pip); ``fact=doubles`` -- the
same set of doubles. An upper bound of what a convention signalling that fact could give.
"""
import numpy as np

import allfives_env.agents.champion as ch
import allfives_env.arena.game as arena_game
from allfives_env.agents.hand_reading import HandReader
from allfives_env.rules.actions import DRAW, tile_of
from allfives_env.rules.tiles import TILE_HIGH, TILE_LOW

CURRENT = {}
_player_view = arena_game.player_view


def _stash(game, seat):
    CURRENT["game"] = game
    return _player_view(game, seat)


arena_game.player_view = _stash
LOW, HIGH = np.array(TILE_LOW), np.array(TILE_HIGH)
BITS = np.arange(28, dtype=np.int64)
DOUBLES = np.flatnonzero(LOW == HIGH)
# suit membership (28, 7): a double counts once
SUIT = np.zeros((28, 7))
SUIT[np.arange(28), LOW] = 1
SUIT[np.arange(28), HIGH] = 1


def fact(masks, kind):
    bits = (np.asarray(masks, np.int64)[:, None] >> BITS) & 1
    if kind == "longest":
        counts = bits @ SUIT
        return 6 - np.argmax(counts[:, ::-1], axis=1)  # ties: the higher pip
    return bits[:, DOUBLES] @ (1 << np.arange(len(DOUBLES)))


class ToldReader(HandReader):
    def read(self, view, cfg, target):
        super().read(view, cfg, target)
        game = CURRENT["game"]
        partner = (view.seat + 2) % 4
        placed = 0
        for e in view.events:  # this hand's events
            if e[0] == partner and e[1] < DRAW:
                placed |= 1 << tile_of(e[1])
        true = fact([int(game.hands[partner]) | placed], self.kind)[0]
        worlds = fact(self.bhands[:, partner] | placed, self.kind)
        keep = worlds == true
        if keep.any():
            self.weights *= keep
        self.kept.append(keep.mean())


class Told(ch.ChampionAgent):
    def __init__(self, fact="longest", candidates=1024, **kw):
        super().__init__(**kw)
        self.kind, self.candidates = fact, int(candidates)

    def reset(self, seat, config, rng):
        super().reset(seat, config, rng)
        assert self.reader is not None and config.num_players == 4
        old = self.reader
        self.reader = ToldReader(config.num_sides, int(rng.integers(2 ** 62)),
                                 candidates=self.candidates, partner_only=True)
        self.reader.kind, self.reader.kept = self.kind, []
