"""The All Fives game state, its legal actions and its transitions.

:class:`Game` is the rules engine: pure Python, no PettingZoo, no torch, no
global RNG. It is mutable for speed; :meth:`Game.clone` makes a cheap,
independent copy for search. Randomness enters only through the
``numpy.random.Generator`` passed to :meth:`Game.start_game` and
:meth:`Game.start_next_hand` (deals and leader draws); :meth:`Game.step` is
deterministic.

Layout model (R8-R11). Each of the four slots W, E, N, S has an open value
(``open_value[s]``, -1 while the slot is unavailable) and a counting weight
(``weight[s]``): 0 = counts nothing (an unstarted side branch, or the second
straight side of a lone double lead), 1 = an ordinary end, 2 = a double at
the end (R9) or the spinner at an end (R14). The count (R14) is then simply
``sum(open_value[s] * weight[s])`` over available slots.

Events. ``events`` lists the current hand's steps as tuples
``(seat, action, tile, points, count)``. For a draw, ``tile`` is the drawn
tile: **private** to the drawer; public views must hide it (see
:mod:`allfives_env.rules.view`).
"""

import math
from collections.abc import Mapping, Set
from numbers import Real

from .actions import DRAW, PASS, E, N, S, W, placement_id, slot_of, tile_of
from .config import RulesConfig, is_int
from .scoring import hand_end_points, points_for_count
from .tiles import (
    SUIT_TILES,
    TILE_HIGH,
    TILE_LOW,
    TILE_PIPS,
    TILE_SUITS,
    heaviness,
    mask_pips,
    mask_to_tiles,
    tiles_to_mask,
)

CENTER = -1  # spinner_slot when the spinner is the lead itself
TILE_END_WEIGHT = tuple(2 if TILE_LOW[t] == TILE_HIGH[t] else 1 for t in range(28))  # R9


def is_lone_spinner(layout) -> bool:
    """The lead is a double with nothing attached yet: it counts once (R14), and the first tile at an
    end makes it a spinner whose other end counts both halves. ``layout``: a Game, a PlayerView or
    anything with their layout fields."""
    return layout.spinner_slot == CENTER and layout.spinner_tile >= 0 and not any(layout.arm_length)


class Game:
    """Mutable state of one All Fives game plus the rules that move it."""

    __slots__ = (
        "config", "num_players", "num_sides", "target", "divisor", "seat_side",
        # game level
        "scores", "game_over", "winners", "hand_number", "step_gain",
        # hand level
        "hands", "boneyard", "bone_pos", "leader", "to_move", "hand_over", "hand_result",
        "next_leader", "lead_tile", "spinner_tile", "spinner_slot", "branches_open",
        "open_value", "weight", "arm_length", "arms", "count", "played_by",
        "must_play", "drawn_this_turn", "lacks", "events", "hand_start_scores", "played_masks",
        "_legal",
    )

    def __init__(self, config: RulesConfig = None):
        config = config or RulesConfig()
        self.config = config
        self.num_players = config.num_players
        self.num_sides = config.num_sides
        self.target = config.target_points
        self.divisor = config.divisor
        self.seat_side = tuple(config.side_of(seat) for seat in range(config.num_players))
        self.scores = [0.0] * self.num_sides
        self.game_over = True  # nothing to play until start_game
        self.winners = ()
        self.hand_number = 0
        self.step_gain = [0.0] * self.num_sides
        self.hand_over = True
        self.hand_result = None
        self.next_leader = None
        self._legal = None

    # ------------------------------------------------------------------ setup
    def start_game(self, rng, hands=None, boneyard=None, leader=None, scores=None):
        """Start a new game and deal its first hand.

        ``hands`` (one tile-id list per seat), ``boneyard`` (tile ids in draw
        order), ``leader`` (a seat) and ``scores`` (each side's start score)
        reproduce a position; any of them left ``None`` is drawn with ``rng``.
        """
        # Validate everything before changing anything: a refused position leaves the game as it was.
        scores = [0.0] * self.num_sides if scores is None else validate_scores(self.config, scores)
        if leader is not None:
            leader = validate_leader(self.config, leader)
        if hands is not None:
            hands, boneyard = validate_deal(self.config, hands, boneyard, rng)
        elif boneyard is not None:
            raise ValueError("a 'boneyard' needs the 'hands' it goes with")
        self.scores = scores
        self.game_over = False
        self.winners = ()
        self.hand_number = 0
        self.next_leader = None
        self._deal(rng, hands, boneyard, leader)

    def start_next_hand(self, rng, deal=None):
        """Deal the next hand after a hand ended; R19 picks the leader.

        ``deal``: a known ``(leader, order)`` pair, as :func:`draw_deal` returns
        it (``order``: the hands seat by seat, then the boneyard in draw order),
        dealt without ``rng``. After a domino ``leader`` must be the seat that
        dominoed (R19); after a block it is the drawn leader. A refused deal
        leaves the game as it was."""
        if not self.hand_over or self.game_over:
            raise RuntimeError("start_next_hand() needs a finished hand in an unfinished game")
        hands = boneyard = leader = None
        if deal is not None:
            leader, hands, boneyard = self._check_next_deal(*deal)
        self.hand_number += 1
        self._deal(rng, hands, boneyard, leader)

    def next_hand_leader(self, drawn_leader: int) -> int:
        """Who leads the next hand (R19): the seat that dominoed the last one, else (after a block)
        ``drawn_leader``, the leader drawn as a new game draws it."""
        return drawn_leader if self.next_leader is None else self.next_leader

    def _check_next_deal(self, leader, order):
        """``(leader, hands, boneyard)`` of a known next-hand deal, checked (R4, R19)."""
        leader = validate_leader(self.config, leader)
        if self.next_leader is not None and leader != self.next_leader:
            raise ValueError(
                f"leader={leader}, but seat {self.next_leader} dominoed the last hand and leads the next (R19)"
            )
        hands, boneyard = validate_deal(self.config, *split_order(self.config, order), None)
        return leader, hands, boneyard

    def _deal(self, rng, hands, boneyard, leader):
        """Deal a hand: given (already validated) hands/boneyard/leader, or drawn with ``rng``."""
        config = self.config
        if leader is None:
            leader = self.next_leader
        if hands is None:
            leader, order = draw_deal(config, rng, leader)
            hands, boneyard = split_order(config, order)
        elif leader is None:
            leader = draw_leader(config, rng)
        self.hands = [tiles_to_mask(h) for h in hands]
        self.boneyard = boneyard
        self.bone_pos = 0
        self.leader = leader
        self.to_move = leader
        self.hand_over = False
        self.hand_result = None
        self.next_leader = None
        self.lead_tile = -1
        self.spinner_tile = -1
        self.spinner_slot = CENTER
        self.branches_open = False
        self.open_value = [-1, -1, -1, -1]
        self.weight = [0, 0, 0, 0]
        self.arm_length = [0, 0, 0, 0]
        self.arms = ([], [], [], [])
        self.count = 0
        self.played_by = [-1] * 28
        self.played_masks = [0] * self.num_players
        self._legal = None
        self.must_play = -1
        self.drawn_this_turn = 0
        self.lacks = [0] * self.num_players
        self.events = []
        self.hand_start_scores = list(self.scores)

    # ---------------------------------------------------------------- queries
    @property
    def boneyard_left(self) -> int:
        return len(self.boneyard) - self.bone_pos

    @property
    def is_lead(self) -> bool:
        return self.lead_tile < 0

    def open_suits(self) -> int:
        """Bit mask (7 bits) of the values open at any available slot."""
        suits = 0
        for value in self.open_value:
            if value >= 0:
                suits |= 1 << value
        return suits

    def fitting_tiles(self) -> int:
        """Bit mask of the tiles that fit an open end now (R12; nothing is open before the lead)."""
        fitting = 0
        for value in self.open_value:
            if value >= 0:
                fitting |= SUIT_TILES[value]
        return fitting

    def hand_size(self, seat: int) -> int:
        return self.hands[seat].bit_count()

    def legal_actions(self) -> list:
        """The legal action ids of the seat to move, ascending (R6, R12, R13).

        The list is cached until the next step: treat it as read-only."""
        legal = self._legal
        if legal is None:
            legal = self._legal = self._compute_legal_actions()
        return legal

    def _compute_legal_actions(self) -> list:
        if self.hand_over or self.game_over:
            return []
        hand = self.hands[self.to_move]
        if self.lead_tile < 0:  # R6: any tile leads, always at slot W
            return [placement_id(t, W) for t in mask_to_tiles(hand)]
        if self.must_play >= 0:  # R13: the drawn playable tile, at any slot where it fits
            return self._placements(1 << self.must_play)
        actions = self._placements(hand)
        if actions:  # R12: must play
            return actions
        return [DRAW] if self.bone_pos < len(self.boneyard) else [PASS]

    def _placements(self, hand_mask: int) -> list:
        """Placements of the tiles in ``hand_mask``, ascending by action id."""
        value = self.open_value
        w = SUIT_TILES[value[0]] if value[0] >= 0 else 0
        e = SUIT_TILES[value[1]] if value[1] >= 0 else 0
        n = SUIT_TILES[value[2]] if value[2] >= 0 else 0
        s = SUIT_TILES[value[3]] if value[3] >= 0 else 0
        fits = hand_mask & (w | e | n | s)
        actions = []
        while fits:
            low = fits & -fits
            fits ^= low
            tile = low.bit_length() - 1
            if low & w:
                actions.append(placement_id(tile, W))
            if low & e:
                actions.append(placement_id(tile, E))
            if low & n:
                actions.append(placement_id(tile, N))
            if low & s:
                actions.append(placement_id(tile, S))
        return actions

    def can_play(self, seat: int) -> bool:
        """Whether ``seat`` holds any tile that fits an open end now."""
        if self.lead_tile < 0:
            return True
        return bool(self.hands[seat] & self.fitting_tiles())

    def count_after(self, tile: int, slot: int) -> int:
        """The count (R14) the layout would show after placing ``tile`` at ``slot``
        (a legal placement), without changing the state."""
        if self.lead_tile < 0:  # a lone lead counts its pips, a double once (R14)
            return TILE_PIPS[tile]
        # the free half is pips - matched half; a double's counts twice (R9)
        return self._count_without(slot) + (TILE_PIPS[tile] - self.open_value[slot]) * TILE_END_WEIGHT[tile]

    def counts_after(self, actions) -> list:
        """:meth:`count_after` for many legal placements at once (faster per action)."""
        if self.lead_tile < 0:
            return [TILE_PIPS[tile_of(action)] for action in actions]
        value = self.open_value
        base = [None, None, None, None]  # each slot's, worked out once where a placement uses it
        counts = []
        for action in actions:
            tile, slot = tile_of(action), slot_of(action)
            if base[slot] is None:
                base[slot] = self._count_without(slot)
            counts.append(base[slot] + (TILE_PIPS[tile] - value[slot]) * TILE_END_WEIGHT[tile])
        return counts

    def _count_without(self, slot) -> int:
        """The count without the end at ``slot``, as it stands once a tile covers that end: a lone
        double lead that becomes a spinner at an end then counts both its halves at the other end."""
        value, weight = self.open_value, self.weight
        count = self.count - value[slot] * weight[slot]
        if slot < 2 and is_lone_spinner(self):
            other = 1 - slot
            count += (2 - weight[other]) * value[other]
        return count

    # ------------------------------------------------------------------- step
    def step(self, action: int) -> None:
        """Apply a legal action of the seat to move (legality is the caller's
        check: see :meth:`legal_actions`). ``step_gain`` then holds the points
        each side gained in this step, hand-end bonus included."""
        self.step_gain = [0.0] * self.num_sides
        self._legal = None
        seat = self.to_move
        if action < DRAW:
            self._play(seat, tile_of(action), slot_of(action), action)
        elif action == DRAW:
            self._draw(seat)
        else:
            self._pass(seat)

    def _play(self, seat, tile, slot, action):
        bit = 1 << tile
        hand = self.hands[seat] & ~bit
        self.hands[seat] = hand
        self._place(tile, slot)
        self.played_by[tile] = seat
        self.played_masks[seat] |= bit
        count = self.count = self._count()
        points = points_for_count(count, self.divisor)  # R15
        self.events.append((seat, action, tile, points, count))
        if points:
            self._score(self.seat_side[seat], points)
            if self.game_over:  # R3: the target ends the game at once, no bonus
                self.hand_over = True
                return
        self.must_play = -1
        self.drawn_this_turn = 0
        if not hand:  # R17
            self._end_hand(domino_seat=seat)
            return
        self.to_move = (seat + 1) % self.num_players
        if self.bone_pos == len(self.boneyard):
            self._check_block()

    def _place(self, tile, slot):
        low, high = TILE_LOW[tile], TILE_HIGH[tile]
        if self.lead_tile < 0:
            self._lead(tile, low, high)
            return
        value = self.open_value[slot]
        if self.spinner_tile >= 0 and not self.branches_open:
            self._cover_spinner_side(slot)
        self.open_value[slot] = high if low == value else low
        self.weight[slot] = 2 if low == high else 1  # R9: a double at the end counts twice
        self.arm_length[slot] += 1
        self.arms[slot].append(tile)
        if low == high and self.spinner_tile < 0:  # R10: the first double is the spinner
            self.spinner_tile = tile
            self.spinner_slot = slot

    def _lead(self, tile, low, high):
        self.lead_tile = tile
        if low == high:  # R8/R10: a double lead is the spinner; counted once while alone (R14)
            self.open_value[0] = self.open_value[1] = low
            self.weight[0], self.weight[1] = 2, 0
            self.spinner_tile = tile
            self.spinner_slot = CENTER
        else:  # R8: lower half opens W, higher half E
            self.open_value[0], self.open_value[1] = low, high
            self.weight[0] = self.weight[1] = 1

    def _cover_spinner_side(self, slot):
        """Bookkeeping when a tile is attached while a straight side of the spinner is free."""
        if self.spinner_slot == CENTER:
            other = 1 - slot
            if self.arm_length[other] == 0:
                self.weight[other] = 2  # the lone double lead is now a spinner at an end
            else:
                self._open_branches()  # R11: both straight sides occupied
        elif self.spinner_slot == slot:
            self._open_branches()  # R10: tile attached beyond an arm's spinner

    def _open_branches(self):
        self.branches_open = True
        value = TILE_LOW[self.spinner_tile]
        self.open_value[2] = self.open_value[3] = value
        self.weight[2] = self.weight[3] = 0  # R14: unstarted branches count zero

    def _count(self) -> int:
        value, weight = self.open_value, self.weight
        return value[0] * weight[0] + value[1] * weight[1] + value[2] * weight[2] + value[3] * weight[3]

    def _draw(self, seat):
        tile = self.boneyard[self.bone_pos]
        self.bone_pos += 1
        self.hands[seat] |= 1 << tile
        self.drawn_this_turn += 1
        open_suits = self.open_suits()
        # The drawer lacked every open suit; the new tile may carry any other one.
        self.lacks[seat] = open_suits
        self.events.append((seat, DRAW, tile, 0, self.count))
        if TILE_SUITS[tile] & open_suits:
            self.must_play = tile  # R13: play that tile at once
        else:
            self._check_block()  # C2: a hand can end on a draw

    def _pass(self, seat):
        self.lacks[seat] |= self.open_suits()
        self.events.append((seat, PASS, -1, 0, self.count))
        self.drawn_this_turn = 0
        self.to_move = (seat + 1) % self.num_players
        self._check_block()

    def _check_block(self):
        """R18/C2: an empty boneyard and nobody able to play ends the hand."""
        if self.bone_pos < len(self.boneyard):
            return
        fitting = 0
        for value in self.open_value:
            if value >= 0:
                fitting |= SUIT_TILES[value]
        for hand in self.hands:
            if hand & fitting:
                return
        self._end_hand(domino_seat=None)

    def _score(self, side, points):
        self.scores[side] += points
        self.step_gain[side] += points
        if self.scores[side] >= self.target:
            self.game_over = True
            self.winners = (side,)

    def _end_hand(self, domino_seat):
        seat_pips = [mask_pips(hand) for hand in self.hands]
        points, winner = hand_end_points(self.config, seat_pips, domino_seat)
        for side, gained in enumerate(points):
            self.scores[side] += gained
            self.step_gain[side] += gained
        self.hand_over = True
        self.hand_result = HandResult(
            "domino" if domino_seat is not None else "block", winner, tuple(points), tuple(seat_pips)
        )
        self.next_leader = domino_seat  # R19: None after a block means a fresh draw
        self._check_target_after_bonus()

    def _check_target_after_bonus(self):
        """R25: the target reached by a bonus; a split can bring two sides there at once."""
        reached = [side for side in range(self.num_sides) if self.scores[side] >= self.target]
        if not reached:
            return
        best = max(self.scores[side] for side in reached)
        self.game_over = True
        self.winners = tuple(side for side in reached if self.scores[side] == best)

    # ------------------------------------------------------------------ copies
    def clone(self) -> "Game":
        """An independent copy (hands, layout, scores, history); cheap enough for search."""
        other = Game.__new__(Game)
        for name in _SHARED_FIELDS:
            setattr(other, name, getattr(self, name))
        for name in _LIST_FIELDS:
            setattr(other, name, getattr(self, name)[:])
        other.arms = tuple(arm[:] for arm in self.arms)
        other._legal = None
        return other


_LIST_FIELDS = (
    "scores", "step_gain", "hands", "boneyard", "open_value", "weight", "arm_length",
    "played_by", "lacks", "events", "hand_start_scores", "played_masks",
)
_SHARED_FIELDS = tuple(
    name for name in Game.__slots__ if name not in _LIST_FIELDS and name != "arms"
)


class HandResult:
    """How a hand ended: ``kind`` ("domino" or "block"), the winning side (None
    after a tied block), each side's hand-end points and each seat's pips."""

    __slots__ = ("kind", "winner", "points", "seat_pips")

    def __init__(self, kind, winner, points, seat_pips):
        self.kind, self.winner, self.points, self.seat_pips = kind, winner, points, seat_pips

    def __repr__(self):
        return f"HandResult({self.kind!r}, winner={self.winner}, points={self.points}, seat_pips={self.seat_pips})"


def draw_deal(config: RulesConfig, rng, leader=None):
    """A random deal: ``(leader, order)``. The leader is drawn first (R5/V3) when
    ``leader`` is None, then the 28 tiles are shuffled (R4): ``order`` lists the
    hands seat by seat, then the boneyard in draw order. Every backend deals
    through this one function, so a seed gives the same games everywhere."""
    if leader is None:
        leader = draw_leader(config, rng)
    return leader, [int(t) for t in rng.permutation(28)]


def split_order(config: RulesConfig, order):
    """``(hands, boneyard)`` of a deal order (hands seat by seat, then the boneyard)."""
    size, n = config.tiles_per_hand, config.num_players
    return [list(order[i * size:(i + 1) * size]) for i in range(n)], list(order[n * size:])


def draw_leader(config: RulesConfig, rng) -> int:
    """R5 (uniform seat) or V3 ``heaviest_tile`` (each seat draws a tile, the heaviest leads)."""
    if config.first_leader == "random":
        return int(rng.integers(config.num_players))
    drawn = rng.permutation(28)[: config.num_players]
    return max(range(config.num_players), key=lambda seat: heaviness(int(drawn[seat])))


def validate_deal(config: RulesConfig, hands, boneyard, rng):
    """Check a user-given deal (R4); returns ``(hands, boneyard)`` as int lists.

    A missing boneyard is filled with the tiles not in any hand, shuffled by ``rng``.
    """
    n, size = config.num_players, config.tiles_per_hand
    _check_list(hands, "hands", "one list of tile ids per seat")
    for hand in hands:
        _check_list(hand, "hands", "one list of tile ids per seat")
    if boneyard is not None:
        _check_list(boneyard, "boneyard", "a list of tile ids in draw order")
    if len(hands) != n:
        raise ValueError(f"'hands' has {len(hands)} hands; {n} players need {n} (one per seat)")
    hands = [[_tile_id(t, "hands") for t in hand] for hand in hands]
    for seat, hand in enumerate(hands):
        if len(hand) != size:
            raise ValueError(
                f"hand of seat {seat} has {len(hand)} tiles; {n} players with hand_size="
                f"{config.hand_size!r} are dealt {size} each"
            )
    dealt = [t for hand in hands for t in hand]
    if boneyard is None:
        _check_partition(dealt, expect_all=False)  # before rng is touched
        rest = sorted(set(range(28)) - set(dealt))
        boneyard = [rest[i] for i in rng.permutation(len(rest))]
    else:
        boneyard = [_tile_id(t, "boneyard") for t in boneyard]
    _check_partition(dealt + boneyard, expect_all=True)
    return hands, boneyard


def _check_partition(tiles, expect_all):
    missing = sorted(set(range(28)) - set(tiles)) if expect_all else []
    repeated = sorted({t for t in tiles if tiles.count(t) > 1})
    if missing or repeated or (expect_all and len(tiles) != 28):
        wrong = "; ".join(f"{what} {ids}" for what, ids in (("missing", missing), ("repeated", repeated)) if ids)
        raise ValueError(f"the deal must hold all 28 tiles exactly once; {wrong}")


def validate_leader(config: RulesConfig, leader) -> int:
    if not is_int(leader) or leader not in range(config.num_players):
        raise ValueError(f"leader={leader!r} is not a seat; allowed 0..{config.num_players - 1}")
    return int(leader)


def _check_list(value, name, allowed):
    """A list, tuple or array: a dict, set or string would be read by its keys, in no order or by characters."""
    if isinstance(value, (str, bytes, Mapping, Set)) or not (hasattr(value, "__len__") and hasattr(value, "__iter__")):
        raise ValueError(f"{name!r} holds {value!r}; allowed: {allowed}")


def validate_scores(config: RulesConfig, scores) -> list:
    _check_list(scores, "scores", "a list of each side's score")
    if len(scores) != config.num_sides:
        raise ValueError(f"'scores' needs {config.num_sides} entries (one per side), got {len(scores)}")
    out = []
    for side, score in enumerate(scores):
        # R24: exact whole or half points; NumPy numbers are fine, inf/nan are not.
        if isinstance(score, bool) or not isinstance(score, Real) or not _is_half_points(score):
            raise ValueError(f"score of side {side} is {score!r}; scores are finite whole or half points")
        if score >= config.target_points:
            raise ValueError(f"score of side {side} is {score}, already at the target {config.target_points}")
        out.append(float(score))
    return out


def _is_half_points(score) -> bool:
    """R24: a finite number of whole or half points."""
    try:
        return math.isfinite(score) and 2 * score == int(2 * score)
    except OverflowError:  # an int beyond a float's range, or a float whose double is infinite (int(inf))
        return False


def _tile_id(tile, where):
    try:
        as_int = int(tile)
    except (TypeError, ValueError, OverflowError):  # OverflowError: inf
        as_int = None
    if isinstance(tile, bool) or as_int is None or as_int != tile or not 0 <= as_int < 28:
        raise ValueError(f"{tile!r} in {where!r} is not a tile id; allowed integers 0..27")
    return as_int

