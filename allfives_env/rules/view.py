"""What one seat may know, and sampling hidden states consistent with it.

:func:`player_view` turns a :class:`~allfives_env.rules.game.Game` into a
:class:`PlayerView`: the seat's own hand plus everything public (layout,
scores, hand sizes, boneyard size, suits each seat is known to lack, and the
current hand's history with the tiles *other* seats drew replaced by ``-1``).
Nothing else of the game is copied into it: other hands, the boneyard's
order and another seat's pending must-play tile are never in a view.

:func:`sample_world` is the determinization hook for search agents: it
returns a full :class:`Game` that agrees with the view in every public field
and in the seat's own hand, with the unseen tiles dealt to the other hands and
the boneyard so that hand sizes and every known lacking suit are respected.

Encoders. Learned policies are fed the project's observation vectors,
which encoders compute from a :class:`Game`: ``view.observation(encoder)``
returns ``encoder(game, seat)`` where ``game`` is a stand-in built from the
view alone (:func:`stand_in_game`): the seat's own hand and every public
field exact, the other hands filled with unseen tiles in tile order (their
sizes exact, their contents meaningless). A view holds no reference to the
real game, so an agent does not come upon a hidden tile, or change the game,
through its view (code set on cheating can still reach any object of its
process: the view is a boundary against mistakes, not a sandbox). An encoder
must read **only public fields and the seat's own
hand** (``game.hands[seat]``), never other hands' tiles, the boneyard order
or other seats' drawn tiles; then the stand-in gives exactly the real game's
observation (tests compare them).
"""

from .actions import DRAW
from .game import Game, HandResult
from .tiles import ALL_TILES_MASK, SUIT_TILES, TILE_SUITS, mask_to_tiles

__all__ = ["PlayerView", "player_view", "public_layout", "sample_world", "stand_in_game", "unseen_allowed"]


class PlayerView:
    """One seat's information set. All fields are read-only by convention.

    Attributes:
        config, num_players, num_sides, target, divisor, seat_side: the rules.
        seat, side: whose view this is.
        hand: the seat's own tiles (28-bit mask); ``hand_tiles`` as a list.
        scores: each side's score; ``hand_start_scores`` at the hand's start.
        hand_number, leader, to_move, hand_over, game_over, winners, hand_result,
        next_leader: public game state.
        lead_tile, spinner_tile, spinner_slot, branches_open, open_value, weight,
        arm_length, arms, count: the layout (see the game module's docstring).
        played_by: per tile the seat that played it this hand, else -1.
        hand_sizes: tiles held by each seat; boneyard_left / boneyard_size:
        tiles left to draw and the hand's boneyard size; bone_pos: tiles drawn.
        lacks: per seat, 7-bit mask of suits it is known to lack.
        events: the hand's steps ``(seat, action, tile, points, count)``; a draw
        by another seat shows ``tile = -1``.
        must_play: the seat's own drawn tile it must play now, else -1.
        drawn_this_turn: draws of the seat to move in its current turn.
        legal_actions: the seat's legal actions when it is to move, else ().
        unseen: mask of tiles the seat cannot see (other hands + boneyard).
    """

    __slots__ = (
        "config", "num_players", "num_sides", "target", "divisor", "seat_side",
        "seat", "side", "hand", "scores", "hand_start_scores", "hand_number", "leader",
        "to_move", "hand_over", "game_over", "winners", "hand_result", "next_leader",
        "lead_tile", "spinner_tile", "spinner_slot", "branches_open", "open_value", "weight",
        "arm_length", "arms", "count", "played_by", "hand_sizes", "boneyard_left",
        "boneyard_size", "bone_pos", "lacks", "events", "must_play", "drawn_this_turn",
        "legal_actions", "unseen", "_stand_in",
    )

    # The count after a placement reads only the layout, which a view holds.
    count_after = Game.count_after
    counts_after = Game.counts_after
    _count_without = Game._count_without
    open_suits = Game.open_suits

    @property
    def hand_tiles(self) -> list:
        return mask_to_tiles(self.hand)

    @property
    def is_lead(self) -> bool:
        return self.lead_tile < 0

    def observation(self, encoder):
        """``encoder(game, seat)`` on this view's :func:`stand_in_game` (built once per view, so an
        encoder that changes it changes this view's later observations, nothing else); the encoder must
        read only public fields and this seat's hand (see the module docstring)."""
        if self._stand_in is None:
            self._stand_in = stand_in_game(self)
        return encoder(self._stand_in, self.seat)

    def key(self) -> tuple:
        """Every information field as one comparable tuple (for tests and caches)."""
        return tuple(getattr(self, name) for name in _KEY_FIELDS)

    def __repr__(self):
        return f"PlayerView(seat={self.seat}, hand={self.hand_tiles}, count={self.count}, scores={self.scores})"


_KEY_FIELDS = tuple(name for name in PlayerView.__slots__ if name not in ("_stand_in", "config", "hand_result"))


def player_view(game: Game, seat: int) -> PlayerView:
    """The information set of ``seat`` in ``game``: copies of what the seat may know, and no
    reference to ``game``."""
    v = PlayerView.__new__(PlayerView)
    v.config = game.config
    v.num_players = game.num_players
    v.num_sides = game.num_sides
    v.target = game.target
    v.divisor = game.divisor
    v.seat_side = game.seat_side
    v.seat = seat
    v.side = game.seat_side[seat]
    v.hand = game.hands[seat]
    v.scores = tuple(game.scores)
    v.hand_start_scores = tuple(game.hand_start_scores)
    v.hand_number = game.hand_number
    v.leader = game.leader
    v.to_move = game.to_move
    v.hand_over = game.hand_over
    v.game_over = game.game_over
    v.winners = tuple(game.winners)
    result = game.hand_result
    v.hand_result = None if result is None else HandResult(result.kind, result.winner, tuple(result.points),
                                                           tuple(result.seat_pips))
    v.next_leader = game.next_leader
    v.lead_tile = game.lead_tile
    v.spinner_tile = game.spinner_tile
    v.spinner_slot = game.spinner_slot
    v.branches_open = game.branches_open
    v.open_value = tuple(game.open_value)
    v.weight = tuple(game.weight)
    v.arm_length = tuple(game.arm_length)
    v.arms = tuple(tuple(arm) for arm in game.arms)
    v.count = game.count
    v.played_by = tuple(game.played_by)
    v.hand_sizes = tuple(hand.bit_count() for hand in game.hands)
    v.boneyard_size = len(game.boneyard)
    v.bone_pos = game.bone_pos
    v.boneyard_left = len(game.boneyard) - game.bone_pos
    v.lacks = tuple(game.lacks)
    v.events = tuple(
        (s, a, -1, p, c) if a == DRAW and s != seat else (s, a, t, p, c) for (s, a, t, p, c) in game.events
    )
    own_turn = game.to_move == seat and not game.hand_over
    v.must_play = game.must_play if own_turn else -1
    v.drawn_this_turn = game.drawn_this_turn
    v.legal_actions = tuple(game.legal_actions()) if own_turn else ()
    played = 0
    for tile, who in enumerate(game.played_by):
        if who >= 0:
            played |= 1 << tile
    v.unseen = ALL_TILES_MASK & ~game.hands[seat] & ~played
    v._stand_in = None
    return v


def stand_in_game(view: PlayerView) -> Game:
    """A :class:`Game` built from ``view`` alone, for encoders: the seat's own hand and every public
    field as in the real game; each other seat holds its public number of the unseen tiles, dealt in
    tile order (ignoring the suits it is known to lack), and the rest is the boneyard, in tile order.
    Deterministic and cheap; not a plausible world (that is :func:`sample_world`)."""
    hands = [0] * view.num_players
    free = view.unseen
    for seat in range(view.num_players):
        if seat == view.seat:
            hands[seat] = view.hand
            continue
        hand = 0
        for _ in range(view.hand_sizes[seat]):
            lowest = free & -free
            hand |= lowest
            free ^= lowest
        hands[seat] = hand
    return _build_game(view, hands, mask_to_tiles(free), view.must_play, None)


def unseen_allowed(view: PlayerView, other: int) -> int:
    """Mask of unseen tiles that seat ``other`` may hold, given the suits it lacks."""
    lacked = 0
    lacks = view.lacks[other]
    for suit in range(7):
        if lacks >> suit & 1:
            lacked |= SUIT_TILES[suit]
    return view.unseen & ~lacked


# ---------------------------------------------------------------- sampling
def sample_world(view: PlayerView, rng, attempts: int = 6) -> Game:
    """A full :class:`Game` consistent with ``view``, drawn with ``rng``.

    Every unseen tile goes to another seat's hand or to the boneyard's
    undrawn part; each other seat gets exactly its public hand size and no
    tile carrying a suit it is known to lack. When at most one other seat is
    known to lack a suit (always so with 2 players) the assignment is exactly
    uniform over the consistent deals; otherwise it first tries plain
    rejection sampling (exactly uniform when it succeeds) and then falls back
    to a sequential draw that keeps Hall's condition, which is always
    correct and close to uniform.

    Draws already made by other seats stay hidden in the sampled game:
    their ``events`` entries and boneyard positions hold ``-1`` (nothing in
    the engine reads them again). When another seat is to move right after
    drawing, its last drawn tile is sampled among the unseen tiles and
    becomes its must-play tile if it fits an open end.
    """
    n = view.num_players
    others = [s for s in range(n) if s != view.seat]
    sizes = {s: view.hand_sizes[s] for s in others}
    allowed = {s: unseen_allowed(view, s) for s in others}
    pending = _pending_draw_seat(view)
    for _ in range(50):
        unseen = view.unseen
        reserved = {}
        must_play = view.must_play
        if pending is not None:
            # The pending seat's last draw may carry an open suit: draw it freely.
            candidates = mask_to_tiles(unseen)
            tile = candidates[int(rng.integers(len(candidates)))]
            reserved[pending] = 1 << tile
            unseen &= ~(1 << tile)
            must_play = tile if TILE_SUITS[tile] & view.open_suits() else -1
        caps = {s: sizes[s] - (1 if s in reserved else 0) for s in others}
        masks = {s: allowed[s] & unseen for s in others}
        hands = _assign(unseen, caps, masks, others, rng, attempts)
        if hands is not None:
            break
    else:  # pragma: no cover - the public state always admits a deal
        raise RuntimeError("no hidden state is consistent with this view")
    for s, extra in reserved.items():
        hands[s] |= extra
    hands[view.seat] = view.hand
    rest = unseen
    for s in others:
        rest &= ~hands[s]
    return _build_game(view, [hands[s] for s in range(n)], mask_to_tiles(rest), must_play, rng)


def _pending_draw_seat(view):
    """Another seat that has just drawn and is still to move (its last tile is hidden)."""
    if view.hand_over or view.to_move == view.seat or not view.events:
        return None
    seat, action = view.events[-1][0], view.events[-1][1]
    return seat if action == DRAW and seat == view.to_move else None


def _assign(unseen, caps, masks, others, rng, attempts):
    """Disjoint hands ``{seat: mask}`` with ``hands[s] ⊆ masks[s]`` and the given sizes."""
    if any(caps[s] > masks[s].bit_count() for s in others):
        return None
    constrained = [s for s in others if masks[s] != unseen]
    if len(constrained) <= 1:
        # Deal the constrained seat first from its allowed tiles (exactly uniform), then the rest.
        order = constrained + [s for s in others if s not in constrained]
        return _sequential(unseen, caps, masks, order, rng, check=False)
    tiles = mask_to_tiles(unseen)
    for _ in range(attempts):  # plain rejection: exactly uniform when it succeeds
        perm = rng.permutation(len(tiles))
        pos = 0
        hands = {}
        for s in others:
            hand = 0
            for i in perm[pos:pos + caps[s]]:
                hand |= 1 << tiles[i]
            pos += caps[s]
            if hand & ~masks[s]:
                break
            hands[s] = hand
        else:
            return hands
    order = sorted(others, key=lambda s: masks[s].bit_count() - caps[s])
    return _sequential(unseen, caps, masks, order, rng, check=True)


def _sequential(unseen, caps, masks, order, rng, check):
    hands = {}
    free = unseen
    for idx, s in enumerate(order):
        pool = mask_to_tiles(masks[s] & free)
        later = order[idx + 1:]
        for _ in range(200):
            picks = rng.permutation(len(pool))[:caps[s]] if caps[s] else ()
            hand = 0
            for i in picks:
                hand |= 1 << pool[int(i)]
            if not check or _hall_ok(free & ~hand, caps, masks, later):
                break
        else:
            return None
        hands[s] = hand
        free &= ~hand
    return hands


def _hall_ok(free, caps, masks, seats):
    """Hall's condition: every group of seats can still be filled from ``free``."""
    k = len(seats)
    for subset in range(1, 1 << k):
        union, need = 0, 0
        for j in range(k):
            if subset >> j & 1:
                union |= masks[seats[j]]
                need += caps[seats[j]]
        if (union & free).bit_count() < need:
            return False
    return True


def _build_game(view, hands, rest, must_play, rng) -> Game:
    g = Game.__new__(Game)
    g.config = view.config
    g.num_players = view.num_players
    g.num_sides = view.num_sides
    g.target = view.target
    g.divisor = view.divisor
    g.seat_side = view.seat_side
    g.scores = list(view.scores)
    g.game_over = view.game_over
    g.winners = view.winners
    g.hand_number = view.hand_number
    g.step_gain = [0.0] * view.num_sides
    g.hands = hands
    drawn = [t for (s, a, t, p, c) in view.events if a == DRAW]
    g.boneyard = drawn + (list(rest) if rng is None or not rest else [rest[i] for i in rng.permutation(len(rest))])
    g.bone_pos = view.bone_pos
    g.leader = view.leader
    g.to_move = view.to_move
    g.hand_over = view.hand_over
    g.hand_result = view.hand_result
    g.next_leader = view.next_leader
    g.lead_tile = view.lead_tile
    g.spinner_tile = view.spinner_tile
    g.spinner_slot = view.spinner_slot
    g.branches_open = view.branches_open
    g.open_value = list(view.open_value)
    g.weight = list(view.weight)
    g.arm_length = list(view.arm_length)
    g.arms = tuple(list(arm) for arm in view.arms)
    g.count = view.count
    g.played_by = list(view.played_by)
    g.must_play = must_play
    g.drawn_this_turn = view.drawn_this_turn
    g.lacks = list(view.lacks)
    g.events = list(view.events)
    g.hand_start_scores = list(view.hand_start_scores)
    if "played_masks" in _GAME_SLOTS:
        masks = [0] * view.num_players
        for tile, seat in enumerate(view.played_by):
            if seat >= 0:
                masks[seat] |= 1 << tile
        g.played_masks = masks
    for name in _UNSET_SLOTS:  # caches and anything newer: empty, recomputed on demand
        setattr(g, name, None)
    return g


_GAME_SLOTS = tuple(Game.__slots__)
_BUILT_SLOTS = frozenset(
    "config num_players num_sides target divisor seat_side scores game_over winners hand_number "
    "step_gain hands boneyard bone_pos leader to_move hand_over hand_result next_leader lead_tile "
    "spinner_tile spinner_slot branches_open open_value weight arm_length arms count played_by "
    "must_play drawn_this_turn lacks events hand_start_scores played_masks".split()
)
_UNSET_SLOTS = tuple(name for name in _GAME_SLOTS if name not in _BUILT_SLOTS)



def public_layout(view: PlayerView) -> Game:
    """A :class:`Game` holding only what the view knows: the layout, scores and
    the seat's own hand; other hands are empty and the boneyard is unknown
    (``-1`` placeholders). Good for trying the seat's own placements
    (``clone()`` then ``step``) and counting replies with ``count_after``; do
    not play it past the seat's own move."""
    hands = [0] * view.num_players
    hands[view.seat] = view.hand
    g = _build_game(view, hands, [], view.must_play, None)
    g.boneyard = g.boneyard + [-1] * view.boneyard_left
    return g
