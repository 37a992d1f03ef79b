"""The max-score-now baseline, and its compiled twin.

Rule: among the legal placements, take the one whose count scores the most
points now (R15). Ties are broken deterministically by the heavier tile
(more pips, then the double, then the higher half: the V3 order), then by
the lower slot (W, E, N, S). Draw and pass are only ever legal alone.

:func:`greedy_action` is the readable reference (on a ``Game`` or a
``PlayerView``). The compiled twin serves every batched user of greedy play —
the compiled search's rollouts (:func:`greedy_move`), the training opponents
(:func:`greedy_from_observations`), the greedy exclusions and the policy
features (:func:`greedy_key`) — so the order is defined here once; parity
tests tie the twin to the reference.
"""

import numpy as np
from numba import njit

from ..compiled.rules import (
    bit_index,
    count_after,
    forced_action,
    placeable_tiles,
    placement_id,
    points_for_count,
    slot_tiles,
)
from ..compiled.state import OPTS
from ..rules.actions import DRAW, slot_of, tile_of  # Python-level: the kernels below use compiled.rules' twins
from ..rules.scoring import MAX_POINTS
from ..rules.scoring import points_for_count as scored_points
from ..rules.tiles import heaviness
from .base import BaseAgent

#: Tie-break rank of each placement action (higher = preferred): heavier tile, then lower slot.
_ORDER = sorted(range(DRAW), key=lambda a: (heaviness(tile_of(a)), -slot_of(a)))
TIE_RANK = tuple(_ORDER.index(a) for a in range(DRAW))
#: A placement's greedy key is ``points << RANK_BITS | tie rank``: points first, then the tie-break.
RANK_BITS = 7
assert DRAW <= 1 << RANK_BITS
_TIE_RANK = np.array(TIE_RANK, np.int64)


def greedy_action(state, legal_actions) -> int:
    """The greedy choice in ``state`` (a Game or a PlayerView: both offer
    ``count_after`` and ``divisor``)."""
    if len(legal_actions) == 1:  # a draw or a pass is only ever legal alone (R13)
        return legal_actions[0]
    divisor = state.divisor
    best, best_key = legal_actions[0], -1
    for action in legal_actions:
        points = scored_points(state.count_after(tile_of(action), slot_of(action)), divisor)
        key = (points << RANK_BITS) + TIE_RANK[action]
        if key > best_key:
            best, best_key = action, key
    return best


def winning_placement(view, legal_actions):
    """A placement whose points take the seat's side to the target, which wins the game at once (R25),
    or None; among several, the greedy choice (:func:`greedy_action`)."""
    if legal_actions[0] >= DRAW:
        return None
    needed = view.target - view.scores[view.side]
    winning = [a for a in legal_actions
               if scored_points(view.count_after(tile_of(a), slot_of(a)), view.divisor) >= needed]
    return greedy_action(view, winning) if winning else None


class GreedyAgent(BaseAgent):
    """greedy: the placement that scores the most now; ties go to the heavier tile."""

    name = "greedy"

    def act(self, view, legal_actions):
        return greedy_action(view, legal_actions)


# ------------------------------------------------------------ compiled twin
@njit(**OPTS)
def greedy_key(points, action):
    """Greedy's preference for placement ``action`` scoring ``points`` (higher is preferred)."""
    return (points << RANK_BITS) + _TIE_RANK[action]


@njit(**OPTS)
def placement_key(st, b, tile, slot, divisor):
    """Greedy's preference for placing ``tile`` at ``slot`` on the layout of row ``b``."""
    return greedy_key(points_for_count(count_after(st, b, tile, slot), divisor), placement_id(tile, slot))


@njit(**OPTS)
def greedy_move(st, b, hands, divisor):
    """:func:`greedy_action` in game ``b`` of the compiled state (a forced draw or pass as it is)."""
    forced = forced_action(st, b, hands)
    if forced >= 0:
        return forced
    best, best_key = -1, -1
    tiles = placeable_tiles(st, b, hands)
    for slot in range(4):
        fits = tiles & slot_tiles(st, b, slot)
        while fits:  # each tile placeable at this slot: isolate the lowest set bit
            low = fits & -fits
            fits ^= low
            t = bit_index(low)
            key = placement_key(st, b, t, slot, divisor)
            if key > best_key:
                best, best_key = placement_id(t, slot), key
    return best


@njit(**OPTS)
def greedy_from_observations(obs, mask, points_offset, out):
    """``out[b]``: greedy's action in row ``b`` of default observations (``placement_points``
    at ``points_offset`` holds each placement's points / 35) and masks; the only legal
    action when no placement is legal."""
    for b in range(obs.shape[0]):
        best, best_key = -1, -1
        for a in range(DRAW):
            if mask[b, a]:
                key = greedy_key(np.int64(np.rint(obs[b, points_offset + a] * MAX_POINTS)), a)
                if key > best_key:
                    best, best_key = a, key
        if best < 0:
            for a in range(mask.shape[1]):
                if mask[b, a]:
                    best = a
                    break
        out[b] = best
    return out
