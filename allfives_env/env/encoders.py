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

import struct
from collections.abc import Mapping

import numpy as np

from ..rules.actions import DRAW, NUM_PLACEMENTS, PASS, slot_of
from ..rules.config import RulesConfig, is_int, sides_for
from ..rules.scoring import MAX_COUNT, MAX_POINTS, SIZE_SCALE, points_for_count
from ..rules.tiles import TILE_LOW


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
        """Dict of reshaped views (no copies) into ``flat`` (a NumPy array or a torch tensor); works on batches
        ``(..., size)`` too, and on the AEC env's observation dict (its ``"observation"``)."""
        if isinstance(flat, Mapping):
            if "observation" not in flat:
                raise ValueError(f"views() takes the env's observation dict (with an 'observation' key) or the "
                                 f"vector itself; got a dict with keys {sorted(flat)}")
            flat = flat["observation"]
        if not hasattr(flat, "shape"):  # a list; arrays and tensors keep their type (views, not copies)
            flat = np.asarray(flat)
        if len(flat.shape) == 0 or flat.shape[-1] != self.size:
            raise ValueError(f"views() takes an observation of {self.size} floats (a vector, a batch (..., "
                             f"{self.size}) or the env's observation dict); got shape {tuple(flat.shape)}")
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
    n, sides = num_players, sides_for(num_players)
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
    layout.add("placement_points", NUM_PLACEMENTS)  # points each own legal placement scores now / 35
    return layout


def _f32(values) -> bytes:
    return np.asarray(values, np.float32).tobytes()


def _bit_table(width):
    """Table: integer mask -> ``width`` float32 0/1 values as bytes, bit i at value i."""
    return tuple(_f32([(m >> i) & 1 for i in range(width)]) for m in range(1 << width))


_BITS7 = _bit_table(7)
_BITS4 = _bit_table(4)
_ONE_HOT7 = tuple(_f32([int(i == v) for i in range(7)]) for v in range(-1, 7))  # index: value + 1
_ONE = _f32([1.0])
_ZERO = _f32([0.0])
_FORCED_DRAW, _FORCED_PLAY_DRAWN, _FORCED_PASS, _NOT_FORCED = (
    _f32(row) for row in ([1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 0]))
_SPINNER_NONE = _f32([1, 0, 0]) + _ONE_HOT7[0]
_SPINNER_AT_END = _f32([0, 1, 0])
_SPINNER_INSIDE = _f32([0, 0, 1])
_COUNT = tuple(_f32([c / MAX_COUNT]) for c in range(MAX_COUNT + 1))
_TENTHS = tuple(_f32([k / SIZE_SCALE]) for k in range(29))  # hand sizes and tiles drawn
_POINTS = tuple(_f32([p / MAX_POINTS]) for p in range(MAX_COUNT + 1))  # 36 scores with divisor 3 (V5)
_F32_PACK = struct.Struct("<f").pack


def _bits28(mask):
    return _BITS7[mask & 127] + _BITS7[mask >> 7 & 127] + _BITS7[mask >> 14 & 127] + _BITS7[mask >> 21]


class DefaultEncoder:
    """The default flat float32 encoder; see :func:`default_layout` for its parts.

    For speed the vector is assembled as float32 bytes from lookup tables
    (one ``bytes.join``, one ``np.frombuffer``) instead of element-by-element
    numpy writes; tests/test_encoders.py checks it against hand-computed vectors.
    """

    def __init__(self, config: RulesConfig):
        self.config = config
        self.num_players = n = config.num_players
        self.layout = default_layout(n)
        self.size = self.layout.size
        self._divisor = config.divisor
        self._score_norm = 1.0 / config.target_points
        one_hot_n = [_f32([int(i == k) for i in range(n)]) for k in range(n)]
        # Per-observer constants, indexed by absolute seat.
        self._rel_onehot = [[one_hot_n[(other - seat) % n] for other in range(n)] for seat in range(n)]
        self._same_side = [
            _f32([int(config.side_of((seat + rel) % n) == config.side_of(seat)) for rel in range(n)])
            for seat in range(n)
        ]
        self._rel_seats = [[(seat + rel) % n for rel in range(n)] for seat in range(n)]
        self._rel_sides = [_relative_sides(config, seat) for seat in range(n)]
        norm = 1.0 / max(1, config.boneyard_size)
        self._boneyard = tuple(_f32([k * norm]) for k in range(29))
        self._no_points = bytes(4 * NUM_PLACEMENTS)
        self._score_cache = {}

    def views(self, obs):
        return self.layout.views(obs)

    def encode(self, game, seat: int, out: np.ndarray = None) -> np.ndarray:
        """Encode what ``seat`` knows of ``game`` into ``out`` (allocated when None)."""
        if game.is_lead and game.hand_over:  # no hand in progress
            if out is None:
                return np.zeros(self.size, np.float32)
            out.fill(0.0)
            return out
        rel_seats = self._rel_seats[seat]
        value, weight = game.open_value, game.weight
        available = (value[0] >= 0) | (value[1] >= 0) << 1 | (value[2] >= 0) << 2 | (value[3] >= 0) << 3
        counts = (weight[0] > 0) | (weight[1] > 0) << 1 | (weight[2] > 0) << 2 | (weight[3] > 0) << 3
        double_end = (weight[0] == 2) | (weight[1] == 2) << 1 | (weight[2] == 2) << 2 | (weight[3] == 2) << 3
        if game.spinner_tile < 0:
            spinner = _SPINNER_NONE
        else:
            spinner = (_SPINNER_INSIDE if game.branches_open else _SPINNER_AT_END) + _ONE_HOT7[TILE_LOW[game.spinner_tile] + 1]
        forced, drawn, placement_points = _NOT_FORCED, _ZERO, self._no_points
        if game.to_move == seat and not game.hand_over:
            legal = game.legal_actions()
            if legal[0] == DRAW:
                forced = _FORCED_DRAW
            elif legal[0] == PASS:
                forced = _FORCED_PASS
            else:
                if game.must_play >= 0:
                    forced = _FORCED_PLAY_DRAWN
                placement_points = self._placement_points(game, legal)
            drawn = _TENTHS[game.drawn_this_turn]
        played, lacks, hands, scores = game.played_masks, game.lacks, game.hands, game.scores
        rel_onehot = self._rel_onehot[seat]
        blob = b"".join((
            _bits28(hands[seat]),
            *[_bits28(played[other]) for other in rel_seats],
            _BITS4[available],
            _ONE_HOT7[value[0] + 1], _ONE_HOT7[value[1] + 1], _ONE_HOT7[value[2] + 1], _ONE_HOT7[value[3] + 1],
            _BITS4[double_end],
            _BITS4[counts],
            spinner,
            _COUNT[game.count],
            _ONE if game.is_lead else _ZERO,
            self._boneyard[len(game.boneyard) - game.bone_pos],
            *[_TENTHS[hands[other].bit_count()] for other in rel_seats],
            self._same_side[seat],
            *[self._score_bytes(scores[side]) for side in self._rel_sides[seat]],
            *[_BITS7[lacks[other]] for other in rel_seats],
            forced,
            drawn,
            rel_onehot[game.to_move],
            rel_onehot[game.leader],
            placement_points,
        ))
        if out is None:
            return np.frombuffer(bytearray(blob), np.float32)
        out[:] = np.frombuffer(blob, np.float32)
        return out

    def _score_bytes(self, score) -> bytes:
        """float32 bytes of score / target, memoised (scores take few distinct values)."""
        packed = self._score_cache.get(score)
        if packed is None:
            packed = self._score_cache[score] = _F32_PACK(score * self._score_norm)
        return packed

    def _placement_points(self, game, legal) -> bytes:
        """float32 bytes of the points each legal placement would score now (R15), /35."""
        points = None
        divisor = self._divisor
        for action, count in zip(legal, game.counts_after(legal)):
            if points_for_count(count, divisor):
                if points is None:
                    points = bytearray(self._no_points)
                points[4 * action:4 * action + 4] = _POINTS[count]
        return self._no_points if points is None else bytes(points)


def _relative_sides(config, seat):
    """Side indices with the observer's side first, then in play order of first appearance."""
    order = []
    n = config.num_players
    for rel in range(n):
        side = config.side_of((seat + rel) % n)
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
        events = [] if game.is_lead and game.hand_over else game.events
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
                out[base + f["slot"] + slot_of(action)] = 1.0
                out[base + f["points"]] = points / MAX_POINTS
                out[base + f["count"]] = count / MAX_COUNT
        context_off = self.layout.offset("context")
        self.context.encode(game, seat, out[context_off:])
        return out


ENCODERS = {"default": DefaultEncoder, "history": HistoryEncoder}


def check_encoder_name(spec):
    """Refuse a string ``spec`` that names no encoder of :data:`ENCODERS` (a class or instance passes)."""
    if isinstance(spec, str) and spec not in ENCODERS:
        raise ValueError(f"unknown encoder {spec!r}; allowed: {sorted(ENCODERS)} or an encoder class/instance")


def make_encoder(spec, config: RulesConfig):
    """An encoder from a name in :data:`ENCODERS`, an encoder class, or an instance."""
    check_encoder_name(spec)
    if isinstance(spec, str):
        return ENCODERS[spec](config)
    if isinstance(spec, type):
        try:
            return _checked_encoder(spec(config), f"encoder class {spec.__name__}")
        except TypeError as exc:
            raise ValueError(f"encoder class {spec.__name__} cannot be built as {spec.__name__}(config) ({exc}); "
                             "give its constructor a RulesConfig argument, or pass an instance") from None
    if hasattr(spec, "encode") and hasattr(spec, "size"):
        return _checked_encoder(spec, f"encoder {type(spec).__name__}")
    raise ValueError(f"encoder {spec!r} is neither a name, a class nor an object with .encode and .size")


def _checked_encoder(encoder, what):
    """``encoder`` if it has a callable ``encode`` and a ``size`` that is a positive whole number (the
    observation space is built from it); else one line saying which."""
    if not callable(getattr(encoder, "encode", None)):
        raise ValueError(f"{what} has no encode(game, seat) method; an encoder needs .encode and .size")
    size = getattr(encoder, "size", None)
    if not is_int(size) or size < 1:
        raise ValueError(f"{what}: size={size!r} is not allowed; allowed: a positive whole number (the length of "
                         "its observation vector)")
    return encoder
