"""A hand-written player: greedy scoring plus a few rules of thumb.

Each legal placement gets a value (in points); the highest wins, ties go to
the heavier tile as in greedy. The value adds up these rules of thumb, each
a documented term (weights are constructor options):

1. **Score first.** The points the play scores now (R15), for the seat's side
   (with 4 players a partner's points are the side's points: scores are by
   side). A play that reaches the target wins the game and beats everything.
   A play that dominoes adds the expected hand bonus (R21: the unseen pips the
   opponents are expected to hold, rounded).
2. **Deny the reply** (``reply_weight``). Minus the expected best score the
   *next* seat (always an opponent) can make in reply: for every unseen tile
   its best reply score on the new layout, weighted by the chance the next
   seat holds it. That chance comes from the information view: 0 for a tile
   carrying a suit the seat is known to lack, else its hand size over the
   number of unseen tiles it may hold. Tiles are treated as independent; the
   expected maximum is ``sum_i s_i p_i prod_{k<i}(1 - p_k)`` over replies
   sorted by score.
3. **Keep suit control** (``control_weight``, ``stuck_penalty``). Plus a bonus per
   own tile that will still fit the new layout (fewer forced draws next
   turn), minus a penalty when none fits.
4. **Shed heavy tiles when the hand is about to end** (``shed_weight``). Plus
   the played tile's pips times a weight that is small early and grows when
   some hand is down to two tiles or the boneyard is empty (blocks and
   dominoes are near; pips left in hand pay the opponents).
5. **Get rid of doubles** (``double_bonus``): a double fits only one suit, so
   playing it while it fits is worth a little.
"""

import numpy as np

from ..env.options import check_number
from ..rules.actions import slot_of, tile_of
from ..rules.scoring import points_for_count, round5
from ..rules.tiles import TILE_HIGH, TILE_IS_DOUBLE, TILE_LOW, TILE_PIPS, heaviness, mask_to_tiles
from ..rules.view import public_layout, unseen_allowed
from .base import BaseAgent

#: The constructor's weights, in the order of :meth:`HeuristicAgent.weight_array` (the compiled twin's order).
WEIGHT_NAMES = ("reply_weight", "control_weight", "stuck_penalty", "shed_weight", "late_shed_weight",
                "double_bonus")


class HeuristicAgent(BaseAgent):
    """heuristic: score first, deny the next opponent's reply, keep suit control, shed heavy tiles late."""

    name = "heuristic"

    def __init__(self, reply_weight=0.7, control_weight=0.5, stuck_penalty=3.0,
                 shed_weight=0.1, late_shed_weight=0.6, double_bonus=1.0):
        super().__init__()
        # any finite number: a negative weight reverses its preference
        self.reply_weight = check_number("reply_weight", reply_weight)
        self.control_weight = check_number("control_weight", control_weight)
        self.stuck_penalty = check_number("stuck_penalty", stuck_penalty)
        self.shed_weight = check_number("shed_weight", shed_weight)
        self.late_shed_weight = check_number("late_shed_weight", late_shed_weight)
        self.double_bonus = check_number("double_bonus", double_bonus)

    def act(self, view, legal_actions):
        if len(legal_actions) == 1:  # a draw or a pass is only ever legal alone (R13)
            return legal_actions[0]
        scores = score_placements(view, legal_actions, self)
        return max(legal_actions, key=lambda a: (scores[a], heaviness(tile_of(a)), -slot_of(a)))

    def weight_array(self) -> np.ndarray:
        """The weights as float64 in :data:`WEIGHT_NAMES` order (what the compiled heuristic reads)."""
        return np.array([getattr(self, name) for name in WEIGHT_NAMES], np.float64)


def score_placements(view, legal_actions, weights) -> dict:
    """The heuristic value of each legal placement (see the module docstring)."""
    seat, divisor = view.seat, view.divisor
    side = view.side
    nxt = (seat + 1) % view.num_players
    n_next = view.hand_sizes[nxt]
    allowed = unseen_allowed(view, nxt)
    candidates = mask_to_tiles(allowed)
    p_hold = min(1.0, n_next / len(candidates)) if candidates else 0.0
    late = view.boneyard_left == 0 or min(view.hand_sizes) <= 2
    shed = weights.late_shed_weight if late else weights.shed_weight
    base = public_layout(view)
    hand = view.hand
    values = {}
    for action in legal_actions:
        tile, slot = tile_of(action), slot_of(action)
        points = points_for_count(view.count_after(tile, slot), divisor)
        if view.scores[side] + points >= view.target:
            values[action] = 1e6 + points
            continue
        value = float(points)
        rest = hand & ~(1 << tile)
        if not rest:  # domino: the expected bonus (rule 1)
            values[action] = value + round5(_expected_opponent_pips(view)) + 100.0
            continue
        g = base.clone()
        g.step(action)
        # rule 2: the next opponent's expected best reply
        replies = []
        open_value = g.open_value
        for t in candidates:
            low, high = TILE_LOW[t], TILE_HIGH[t]
            best = 0
            for s in range(4):
                v = open_value[s]
                if v >= 0 and (v == low or v == high):
                    pts = points_for_count(g.count_after(t, s), divisor)
                    if pts > best:
                        best = pts
            if best:
                replies.append(best)
        if replies:
            replies.sort(reverse=True)
            expected, miss = 0.0, 1.0
            for pts in replies:
                expected += pts * p_hold * miss
                miss *= 1.0 - p_hold
            value -= weights.reply_weight * expected
        # rule 3: own tiles that still fit afterwards
        fit_count = (rest & g.fitting_tiles()).bit_count()
        value += weights.control_weight * fit_count
        if not fit_count:
            value -= weights.stuck_penalty
        # rules 4 and 5
        value += shed * TILE_PIPS[tile]
        if TILE_IS_DOUBLE[tile]:
            value += weights.double_bonus
        values[action] = value
    return values


def _expected_opponent_pips(view) -> float:
    """Unseen pips the opponents of the seat's side are expected to hold."""
    unseen = mask_to_tiles(view.unseen)
    if not unseen:
        return 0.0
    mean_pips = sum(TILE_PIPS[t] for t in unseen) / len(unseen)
    held = sum(view.hand_sizes[s] for s in range(view.num_players) if view.seat_side[s] != view.side)
    return held * mean_pips
