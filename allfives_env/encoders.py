"""Observation encoders: one flat float32 vector per (game, seat), with named views.

An encoder reads only what the seat may know: its own hand and the public
state (layout, tiles played and by whom, counts, scores, hand sizes, the
boneyard *size*, suits each player is known to lack). It never reads other
hands, the boneyard's contents or order, or the tile another player drew.
``tests/test_encoders.py`` checks this by changing hidden tiles.

Everything is **seat-relative**: relative seat 0 is the observer, 1 the next
seat in play order, and so on; sides are listed with the observer's side first.

Encoders follow a small protocol, so users can supply their own::

    class MyEncoder:
        size: int                                   # length of the vector
        def __init__(self, config: RulesConfig): ...
        def encode(self, game, seat) -> np.ndarray  # float32, shape (size,)

:class:`SliceLayout` gives OpenSpiel-style named views of the flat vector:
``encoder.views(obs)["hand"]`` is the 28-long own-hand part, and so on.
"""

import numpy as np

from .rules.actions import DRAW, NUM_ACTIONS, PASS
from .rules.config import RulesConfig
from .rules.scoring import points_for_count
from .rules.tiles import TILE_LOW, mask_to_tiles

MAX_COUNT = 36  # R15: the largest possible count
MAX_POINTS = 35  # R15: the largest scoring count


class SliceLayout:
    """Named, contiguous parts of one flat vector."""

    def __init__(self):
        self.parts = {}  # name -> (offset, shape)
        self.size = 0

    def add(self, name, *shape):
        length = int(np.prod(shape))
        self.parts[name] = (self.size, shape)
        self.size += length
        return self.size - length

    def offset(self, name):
        return self.parts[name][0]

    def views(self, flat):
        """Dict of reshaped views (no copies) into ``flat``; works on batches ``(..., size)`` too."""
        lead = flat.shape[:-1]
        return {
            name: flat[..., off:off + int(np.prod(shape))].reshape(*lead, *shape)
            for name, (off, shape) in self.parts.items()
        }

    def table(self):
        """Rows ``(name, offset, shape)`` for documentation."""
        return [(name, off, shape) for name, (off, shape) in self.parts.items()]


def default_layout(num_players: int) -> SliceLayout:
    """The parts of :class:`DefaultEncoder`'s vector for ``num_players`` seats."""
    n, sides = num_players, (2 if num_players == 4 else num_players)
    layout = SliceLayout()
    layout.add("hand", 28)  # own tiles
    layout.add("played_by", n, 28)  # tiles played this hand, by relative seat
    layout.add("slot_available", 4)  # W, E, N, S can take a tile now
    layout.add("slot_value", 4, 7)  # one-hot open value of each available slot
    layout.add("slot_double_end", 4)  # the slot's end counts both halves (double or spinner at the end)
    layout.add("slot_counts", 4)  # the slot's end counts at all (started)
    layout.add("spinner_state", 3)  # none yet / a straight side free / inside (branches open)
    layout.add("spinner_value", 7)  # one-hot value of the spinner
    layout.add("count", 1)  # current count / 36
    layout.add("is_lead", 1)  # the layout is empty: this move leads
    layout.add("boneyard", 1)  # tiles left to draw / tiles in the boneyard at the deal
    layout.add("hand_sizes", n)  # tiles held by each relative seat / 10
    layout.add("same_side", n)  # relative seat is on the observer's side (self, partner)
    layout.add("scores", sides)  # each side's score / target, observer's side first
    layout.add("lacks", n, 7)  # suits each relative seat is known to lack (draws, passes)
    layout.add("forced", 3)  # must draw / must play the drawn tile / must pass
    layout.add("drawn_this_turn", 1)  # tiles drawn this turn by the seat to move / 10
    layout.add("to_move", n)  # relative seat whose turn it is
    layout.add("leader", n)  # relative seat that led this hand
    layout.add("placement_points", NUM_ACTIONS - 2)  # points each own legal placement scores now / 35
    return layout


class DefaultEncoder:
    """The default flat float32 encoder; see :func:`default_layout` for its parts."""

    def __init__(self, config: RulesConfig):
        self.config = config
        self.num_players = config.num_players
        self.layout = default_layout(config.num_players)
        self.size = self.layout.size
        self._off = {name: off for name, (off, _) in self.layout.parts.items()}
        self._boneyard_norm = 1.0 / max(1, config.boneyard_size)
        self._score_norm = 1.0 / config.target_points
        self._divisor = config.divisor

    def views(self, obs):
        return self.layout.views(obs)

    def encode(self, game, seat: int, out: np.ndarray = None) -> np.ndarray:
        """Encode what ``seat`` knows of ``game`` into ``out`` (allocated when None)."""
        if out is None:
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0.0)
        if game.hand_over and game.lead_tile < 0:
            return out  # no hand in progress
        o, n = self._off, self.num_players
        idx = [o["hand"] + t for t in mask_to_tiles(game.hands[seat])]
        played = o["played_by"]
        for tile, who in enumerate(game.played_by):
            if who >= 0:
                idx.append(played + ((who - seat) % n) * 28 + tile)
        for slot in range(4):
            value = game.open_value[slot]
            if value < 0:
                continue
            idx.append(o["slot_available"] + slot)
            idx.append(o["slot_value"] + 7 * slot + value)
            weight = game.weight[slot]
            if weight == 2:
                idx.append(o["slot_double_end"] + slot)
            if weight:
                idx.append(o["slot_counts"] + slot)
        if game.spinner_tile >= 0:
            idx.append(o["spinner_state"] + (2 if game.branches_open else 1))
            idx.append(o["spinner_value"] + TILE_LOW[game.spinner_tile])
        else:
            idx.append(o["spinner_state"])
        if game.lead_tile < 0:
            idx.append(o["is_lead"])
        side_of = game.seat_side
        own_side = side_of[seat]
        for rel in range(n):
            other = (seat + rel) % n
            if side_of[other] == own_side:
                idx.append(o["same_side"] + rel)
            lacks = game.lacks[other]
            for suit in range(7):
                if lacks >> suit & 1:
                    idx.append(o["lacks"] + 7 * rel + suit)
        idx.append(o["to_move"] + (game.to_move - seat) % n)
        idx.append(o["leader"] + (game.leader - seat) % n)
        out[idx] = 1.0

        out[o["count"]] = game.count / MAX_COUNT
        out[o["boneyard"]] = game.boneyard_left * self._boneyard_norm
        for rel in range(n):
            out[o["hand_sizes"] + rel] = game.hands[(seat + rel) % n].bit_count() / 10.0
        for rel, side in enumerate(_relative_sides(game, seat)):
            out[o["scores"] + rel] = game.scores[side] * self._score_norm
        if game.to_move == seat and not game.hand_over:
            self._encode_turn(game, out)
        return out

    def _encode_turn(self, game, out):
        """Parts that exist only for the seat to move: forced steps and placement points."""
        o = self._off
        out[o["drawn_this_turn"]] = game.drawn_this_turn / 10.0
        actions = game.legal_actions()
        if actions[0] == DRAW:
            out[o["forced"]] = 1.0
        elif actions[0] == PASS:
            out[o["forced"] + 2] = 1.0
        else:
            if game.must_play >= 0:
                out[o["forced"] + 1] = 1.0
            base = o["placement_points"]
            for action in actions:
                points = points_for_count(game.count_after(action >> 2, action & 3), self._divisor)
                if points:
                    out[base + action] = points / MAX_POINTS


def _relative_sides(game, seat):
    """Side indices with the observer's side first, then in play order of first appearance."""
    order = []
    n = game.num_players
    for rel in range(n):
        side = game.seat_side[(seat + rel) % n]
        if side not in order:
            order.append(side)
    return order


# ---------------------------------------------------------------------------
# History encoder for sequence models

EVENT_FEATURES = SliceLayout()
EVENT_FEATURES.add("valid", 1)  # 1 for a real event, 0 for padding
EVENT_FEATURES.add("seat", 4)  # relative seat that acted
EVENT_FEATURES.add("kind", 3)  # play / draw / pass
EVENT_FEATURES.add("tile", 28)  # tile played; for a draw, the tile only when the observer drew it
EVENT_FEATURES.add("slot", 4)  # slot played at (a lead is W)
EVENT_FEATURES.add("points", 1)  # points scored / 35
EVENT_FEATURES.add("count", 1)  # count after the event / 36


def max_events_per_hand(config: RulesConfig) -> int:
    """Upper bound on steps in one hand: every tile played once, every boneyard
    tile drawn once, and at most n-1 passes between two plays (a pass with
    nobody able to play is a block, C2)."""
    plays = config.num_players * config.tiles_per_hand + config.boneyard_size
    return plays + config.boneyard_size + (config.num_players - 1) * (plays + 1)


class HistoryEncoder:
    """The current hand's public history as a padded event sequence, followed by
    the :class:`DefaultEncoder` vector as context.

    Views: ``"events"`` has shape ``(max_events, EVENT_FEATURES.size)``, one row
    per step in order (row features in :data:`EVENT_FEATURES`), zero rows after
    the last event; ``"context"`` is the default observation.
    """

    def __init__(self, config: RulesConfig):
        self.config = config
        self.context = DefaultEncoder(config)
        self.max_events = max_events_per_hand(config)
        self.layout = SliceLayout()
        self.layout.add("events", self.max_events, EVENT_FEATURES.size)
        self.layout.add("context", self.context.size)
        self.size = self.layout.size
        self._event_size = EVENT_FEATURES.size
        self._feat = {name: off for name, (off, _) in EVENT_FEATURES.parts.items()}

    def views(self, obs):
        return self.layout.views(obs)

    def encode(self, game, seat: int, out: np.ndarray = None) -> np.ndarray:
        if out is None:
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0.0)
        f, n, width = self._feat, game.num_players, self._event_size
        events = [] if game.lead_tile < 0 and game.hand_over else game.events
        for row, (actor, action, tile, points, count) in enumerate(events):
            base = row * width
            out[base + f["valid"]] = 1.0
            out[base + f["seat"] + (actor - seat) % n] = 1.0
            if action == DRAW:
                out[base + f["kind"] + 1] = 1.0
                if actor == seat:  # the observer knows what it drew itself
                    out[base + f["tile"] + tile] = 1.0
            elif action == PASS:
                out[base + f["kind"] + 2] = 1.0
            else:
                out[base + f["kind"]] = 1.0
                out[base + f["tile"] + tile] = 1.0
                out[base + f["slot"] + (action & 3)] = 1.0
                out[base + f["points"]] = points / MAX_POINTS
                out[base + f["count"]] = count / MAX_COUNT
        context_off = self.layout.offset("context")
        self.context.encode(game, seat, out[context_off:])
        return out


ENCODERS = {"default": DefaultEncoder, "history": HistoryEncoder}


def make_encoder(spec, config: RulesConfig):
    """An encoder from a name in :data:`ENCODERS`, an encoder class, or an instance."""
    if isinstance(spec, str):
        if spec not in ENCODERS:
            raise ValueError(f"unknown encoder {spec!r}; allowed: {sorted(ENCODERS)} or an encoder class/instance")
        return ENCODERS[spec](config)
    if isinstance(spec, type):
        return spec(config)
    if hasattr(spec, "encode") and hasattr(spec, "size"):
        return spec
    raise ValueError(f"encoder {spec!r} is neither a name, a class nor an object with .encode and .size")
