"""The max-score-now baseline.

Rule: among the legal placements, take the one whose count scores the most
points now (R15). Ties are broken deterministically by the heavier tile
(more pips, then the double, then the higher half: the V3 order), then by
the lower slot (W, E, N, S). Draw and pass are only ever legal alone.
"""

from ..rules.actions import DRAW
from ..rules.tiles import heaviness
from .base import BaseAgent

#: Tie-break rank of each placement action (higher = preferred): heavier tile, then lower slot.
_ORDER = sorted(range(DRAW), key=lambda a: (heaviness(a >> 2), -(a & 3)))
TIE_RANK = tuple(_ORDER.index(a) for a in range(DRAW))


def greedy_action(state, legal_actions) -> int:
    """The greedy choice in ``state`` (a Game or a PlayerView: both offer
    ``count_after`` and ``divisor``)."""
    if len(legal_actions) == 1 or legal_actions[0] >= DRAW:
        return legal_actions[0]
    divisor = state.divisor
    count_after = state.count_after
    best, best_key = legal_actions[0], -1
    for action in legal_actions:
        count = count_after(action >> 2, action & 3)
        key = (count << 7 if count and count % divisor == 0 else 0) + TIE_RANK[action]
        if key > best_key:
            best, best_key = action, key
    return best


class GreedyAgent(BaseAgent):
    """greedy: the placement that scores the most now; ties go to the heavier tile."""

    name = "greedy"

    def act(self, view, legal_actions):
        return greedy_action(view, legal_actions)
