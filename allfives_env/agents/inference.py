"""What an opponent's placements reveal about its hand if it plays greedy.

The greedy agent (:mod:`allfives_env.agents.greedy`) plays the placement with
the most points now, ties to the heavier tile, then the lower slot. So when a
seat that plays greedy chose a placement, no tile that would have ranked
higher (scored more, or tied and ranked higher) was in its hand: tiles leave
hands only by being placed, so it does not hold them later either, until it
draws (a drawn tile may be any of them). The placement that must follow a
draw (R13: only the drawn tile) reveals nothing. These *exclusions* are public
(they depend on the layout and the placement only); each observer keeps out of
a seat's possible tiles those it has not seen itself.

* :func:`greedy_exclusions` replays one hand's public moves (a view's
  ``events``; :func:`view_exclusions` takes the view): what a search or an
  agent at play time uses;
* :class:`ExclusionTracker` keeps them up to date for every game of a
  batched environment as the games are stepped: what training uses.

Tests compare both with a brute-force replay (add the tile to the seat's hand
and ask the greedy agent) and with each other.
"""

import numpy as np
from numba import njit

from ..compiled.rules import clear_layout, place_and_count, popcount, side_of, slot_of, slot_tiles, tile_of
from ..compiled.state import DRAW, MUST_PLAY, NUM_FIELDS, OPTS, PASS, PLAYED_MASK, TO_MOVE
from .greedy import placement_key


@njit(**OPTS)
def ranked_above(st, b, tile, slot, placed, divisor):
    """The tiles outside ``placed`` (and other than ``tile``) that greedy would have played instead of
    placement ``(tile, slot)`` on the layout of row ``b``, had they been in the mover's hand."""
    chosen = placement_key(st, b, tile, slot, divisor)
    out = 0
    for t in range(28):
        if (placed >> t) & 1 or t == tile:
            continue
        for s in range(4):  # where t would go (R6 at a lead)
            if (slot_tiles(st, b, s) >> t) & 1 and placement_key(st, b, t, s, divisor) > chosen:
                out |= 1 << t
                break
    return out


@njit(**OPTS)
def greedy_exclusions(event_seats, event_actions, n_events, seat, n, divisor, lst, row, forbid):
    """``forbid[s]``: the tiles seat ``s`` of the other sides cannot hold now *if it has played greedy*
    all hand: replaying the hand's moves (``event_seats``/``event_actions``: the view's events,
    oldest first) on a scratch layout in row ``row`` of ``lst``, each placement adds
    :func:`ranked_above`; a draw voids what the seat's earlier moves showed, and the placement
    that must follow a draw (R13) shows nothing. The seat's own side gets none. Tiles the observer
    has seen since may remain: it masks them out with what it has not seen."""
    for s in range(n):
        forbid[s] = 0
    clear_layout(lst, row)
    own_side = side_of(seat, n)
    placed = 0
    must_play = 0  # seats whose last move was a draw: their next placement is the drawn tile (R13)
    for i in range(n_events):
        mover, action = event_seats[i], event_actions[i]
        if action == DRAW:
            forbid[mover] = 0
            must_play |= 1 << mover
            continue
        if action == PASS:
            must_play &= ~(1 << mover)
            continue
        tile, slot = tile_of(action), slot_of(action)
        if side_of(mover, n) != own_side and not (must_play >> mover) & 1:
            forbid[mover] |= ranked_above(lst, row, tile, slot, placed, divisor)
        must_play &= ~(1 << mover)
        place_and_count(lst, row, tile, slot)
        placed |= 1 << tile


def view_exclusions(view, forbid):
    """``forbid[s]`` := :func:`greedy_exclusions` of the hand behind ``view`` (a
    :class:`~allfives_env.rules.view.PlayerView`), limited to the tiles its seat has not seen;
    ``forbid`` is an int64 array of 4 (seats beyond the game's get 0). Returns ``forbid``."""
    events = np.array([(e[0], e[1]) for e in view.events], np.int64).reshape(-1, 2)
    layout = np.zeros((1, NUM_FIELDS), np.int8)
    forbid[:] = 0
    greedy_exclusions(events[:, 0], events[:, 1], len(events), view.seat, view.num_players, view.divisor, layout, 0,
                      forbid)
    forbid &= view.unseen
    return forbid


@njit(**OPTS)
def _before_step(st, hands, actions, n, divisor, excl):
    """The exclusions each game's mover adds with ``actions`` (the state before the step)."""
    for b in range(actions.shape[0]):
        action = actions[b]
        seat = st[b, TO_MOVE]
        if action < 0 or action >= DRAW:  # a draw, a pass, or a game not stepped (SKIP)
            continue
        if st[b, MUST_PLAY] >= 0:  # R13: the drawn tile, no choice
            continue
        placed = 0
        for s in range(n):
            placed |= hands[b, PLAYED_MASK + s]
        excl[b, seat] |= ranked_above(st, b, tile_of(action), slot_of(action), placed, divisor)


@njit(**OPTS)
def _after_step(hands, new_hand, n, excl, sizes):
    """New hands start with none; a seat whose hand grew (it drew) loses its exclusions."""
    for b in range(new_hand.shape[0]):
        for s in range(n):
            size = popcount(hands[b, s])
            if new_hand[b] or size > sizes[b, s]:
                excl[b, s] = 0
            sizes[b, s] = size


@njit(**OPTS)
def _relative(excl, to_move, n, out):
    for b in range(to_move.shape[0]):
        seat = to_move[b]
        for rel in range(4):
            out[b, rel] = 0
            if rel < n:
                other = seat + rel
                if other >= n:
                    other -= n
                if side_of(other, n) != side_of(seat, n):
                    out[b, rel] = excl[b, other]


class ExclusionTracker:
    """The greedy exclusions of every seat of every game of a :class:`~allfives_env.vector.VectorAllFives`,
    kept up to date by calling :meth:`before_step` with the actions about to be played and
    :meth:`after_step` with the step's output (draws are noticed by the hands growing, so
    ``auto_forced`` draws count too). :meth:`relative` gives them as the mover's
    :class:`~allfives_env.agents.ppo.features.PolicyInput` takes them (seat-relative, the own side's
    empty), equal to :func:`greedy_exclusions` over the hand's events."""

    def __init__(self, venv):
        self.venv = venv
        self.n = venv.num_players
        self.divisor = int(venv.config.divisor)
        B = venv.num_envs
        self.excl = np.zeros((B, 4), np.int64)
        self.sizes = np.zeros((B, 4), np.int64)
        self.out = np.zeros((B, 4), np.int64)
        _after_step(venv.compiled_state().hands, np.ones(B, np.bool_), self.n, self.excl, self.sizes)

    def before_step(self, actions):
        state = self.venv.compiled_state()
        _before_step(state.st, state.hands, actions, self.n, self.divisor, self.excl)

    def after_step(self, out):
        _after_step(self.venv.compiled_state().hands, out.new_hand, self.n, self.excl, self.sizes)

    def state_dict(self) -> dict:
        return {"excl": self.excl.copy(), "sizes": self.sizes.copy()}

    def load_state_dict(self, state):
        self.excl[...] = state["excl"]
        self.sizes[...] = state["sizes"]

    def relative(self, to_move) -> np.ndarray:
        """(B, 4): for each game, per seat relative to ``to_move``, the tiles it is inferred not to hold
        (a view of a buffer the next call overwrites)."""
        _relative(self.excl, to_move, self.n, self.out)
        return self.out
