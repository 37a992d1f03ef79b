"""Hand reading: what the other seats' placements this hand say about their hands.

The searches draw the hidden hands uniformly from the deals consistent with
what the seat knows (:func:`.search_compiled.draw_world`). But players choose
their placements by what they hold: a seat that placed a blank when it could
have scored 10 with the 5-5 likely did not hold the 5-5. With hand reading
each drawn world is weighted by how likely every other seat's placements this
hand were, had it held what the world gives it, under a model of a reasonable
player: the heuristic agent's values (:func:`.search_compiled.heuristic_values`),
softened,

    P(placement | hand) = (1 - READ_FLOOR) * softmax(values / READ_TEMPERATURE) + READ_FLOOR / legal placements,

and the search plays out worlds drawn in proportion to these weights
(systematic resampling of :data:`READ_CANDIDATES` uniformly drawn worlds;
each copy gets its own boneyard order). The floor bounds what one placement
can say, so a player that does not play like the model costs little.

Only placements whose hand a world fixes count: those of a seat that has not
drawn since (its hand then was its hand now plus the tiles it placed since),
and not the drawn tile that R13 forces. Read for every other seat it is a
model of the opponents, so agents take it as an option that is off by
default; read for the partner alone (``partner_only``, 4 players) it models
only the reader's own side.

:class:`HandReader` holds the scratch of one seat; the kernels replay the
hand's public moves (:func:`read_placements`) and score each world
(:func:`placement_log_likelihood`). Tests compare the replayed positions and
the likelihoods with the rules engine and the Python heuristic agent.
"""

import numpy as np
from numba import njit

from ..compiled.rng import rand_below
from ..compiled.rules import (
    clear_layout,
    legal_placements,
    note_lacks,
    place_and_count,
    popcount,
    side_of,
    slot_of,
    tile_of,
)
from ..compiled.state import BONE_POS, DRAW, LACKS, MUST_PLAY, NUM_FIELDS, OPTS, PASS, PLAYED_MASK, TO_MOVE
from ..rules.config import RulesConfig
from ..vector.batched import make_rng_state
from .search_compiled import HEURISTIC_WEIGHTS, copy_game, draw_world, heuristic_values, load_view

#: The softmax temperature of the model, in points of the heuristic's value.
READ_TEMPERATURE = 2.0
#: The share of each placement's probability spread evenly over the legal placements.
READ_FLOOR = 0.05
#: Worlds drawn uniformly per decision, before the weighting.
READ_CANDIDATES = 256
#: The most placements a hand can hold (the other seats' informative ones are fewer).
_MAX_PLACEMENTS = 28


@njit(**OPTS)
def read_placements(st, hands, scores, n, readable, ev_seat, ev_action, ev_points, n_events, start_scores,
                    sizes, last_draw, est, ehands, escores, mover, chosen, later):
    """Replay the hand's public moves (a view's ``events``: seats, actions, points) from its start
    (scores ``start_scores``), from the position in row 0 of ``st``/``hands``/``scores`` (a seat's
    view). Row ``k`` of ``est``/``ehands``/``escores`` := the public position before the ``k``-th
    informative placement of a seat in the bit mask ``readable`` (:func:`readable_seats`), ``mover[k]``
    its seat, ``chosen[k]`` the action, ``later[k]`` the tiles that seat placed from then on (its hand
    then is its hand now plus these). Other hands hold placeholder tiles of the right sizes. The last
    row of ``est`` is the replay's scratch; ``sizes`` and ``last_draw`` (4) are scratch too. Returns
    how many rows were written."""
    R = est.shape[0] - 1
    copy_game(st, hands, scores, 0, est, ehands, escores, R)
    clear_layout(est, R)
    for s in range(4):
        last_draw[s] = -1
        sizes[s] = popcount(hands[0, s]) if s < n else 0
    for s in range(n):
        ehands[R, PLAYED_MASK + s] = 0
        est[R, LACKS + s] = 0
    for s in range(escores.shape[1]):
        escores[R, s] = start_scores[s]
    for i in range(n_events):  # back to the sizes and the boneyard position at the hand's start
        if ev_action[i] == DRAW:
            last_draw[ev_seat[i]] = i
            sizes[ev_seat[i]] -= 1
            est[R, BONE_POS] -= 1
        elif ev_action[i] != PASS:
            sizes[ev_seat[i]] += 1
    m = 0
    must = 0  # seats whose last move was a draw: their next placement is the drawn tile (R13)
    for i in range(n_events):
        s, action = ev_seat[i], ev_action[i]
        if action >= DRAW:
            note_lacks(est, R, s, action)
            if action == DRAW:
                sizes[s] += 1
                est[R, BONE_POS] += 1
                must |= 1 << s
            else:
                must &= ~(1 << s)
            continue
        if (readable >> s) & 1 and not (must >> s) & 1 and i > last_draw[s] and m < R:
            _snapshot(est, ehands, escores, R, m, s, n, sizes)
            mover[m], chosen[m] = s, action
            placed = 0
            for j in range(i, n_events):
                if ev_seat[j] == s and ev_action[j] < DRAW:
                    placed |= 1 << tile_of(ev_action[j])
            later[m] = placed
            m += 1
        must &= ~(1 << s)
        tile = tile_of(action)
        place_and_count(est, R, tile, slot_of(action))
        ehands[R, PLAYED_MASK + s] |= 1 << tile
        escores[R, side_of(s, n)] += ev_points[i]
        sizes[s] -= 1
    return m


def readable_seats(seat, n, partner_only) -> int:
    """The bit mask of the seats whose placements ``seat`` reads: every other seat, or with
    ``partner_only`` its partner alone (R2: seats 0+2 and 1+3 with 4 players; none with 2 or 3)."""
    if partner_only:
        partner = RulesConfig(num_players=n).partner_of(seat)
        return 0 if partner is None else 1 << partner
    return ((1 << n) - 1) & ~(1 << seat)


@njit(**OPTS)
def _snapshot(est, ehands, escores, R, m, s, n, sizes):
    """Row ``m`` := the replay row ``R`` with ``s`` to move and placeholder hands of the right sizes."""
    copy_game(est, ehands, escores, R, est, ehands, escores, m)
    est[m, TO_MOVE] = s
    est[m, MUST_PLAY] = -1
    for other in range(n):
        ehands[m, other] = (1 << sizes[other]) - 1


@njit(**OPTS)
def placement_log_likelihood(whands, w, count, est, ehands, escores, mover, chosen, later, cfg, target, temperature,
                             floor, legal, values, lst, lhands, lscores, replies):
    """The log-likelihood of the ``count`` read placements (:func:`read_placements`) if the other seats
    held the hands of world ``w`` of ``whands``: the sum of log P(placement | hand) of the module
    docstring. ``legal``/``values`` (112), row 0 of ``lst``/``lhands``/``lscores`` and ``replies`` (28)
    are scratch. -inf when a placement was impossible with that hand."""
    total = 0.0
    for k in range(count):
        s = mover[k]
        ehands[k, s] = whands[w, s] | later[k]
        n_legal = legal_placements(est, k, ehands, legal)
        if n_legal <= 1:
            continue
        heuristic_values(est, k, ehands, escores, cfg, target, legal, n_legal, HEURISTIC_WEIGHTS, lst, lhands, lscores,
                         0, replies, values)
        best, pick = -np.inf, -1
        for j in range(n_legal):
            values[j] = min(values[j], 1e3) / temperature  # a placement that wins the game: 1000, as the prior
            best = max(best, values[j])
            if legal[j] == chosen[k]:
                pick = j
        if pick < 0:
            return -np.inf
        z = 0.0
        for j in range(n_legal):
            z += np.exp(values[j] - best)
        total += np.log((1.0 - floor) * np.exp(values[pick] - best) / z + floor / n_legal)
    return total


@njit(**OPTS)
def draw_read_worlds(st, hands, scores, seat, n, candidates, bst, bhands, bscores, rng, tiles, no_forbid, count, est,
                     ehands, escores, mover, chosen, later, cfg, target, temperature, floor, legal, values, lst,
                     lhands, lscores, replies, loglik):
    """Rows ``0..candidates-1`` of ``bst``/``bhands``/``bscores`` := worlds drawn uniformly from what
    ``seat`` knows in row 0 of ``st``; ``loglik[w]`` := :func:`placement_log_likelihood` of world ``w``."""
    for w in range(candidates):
        draw_world(st, hands, scores, 0, seat, n, bst, bhands, bscores, w, rng, 0, tiles, 50, no_forbid, no_forbid)
        loglik[w] = placement_log_likelihood(bhands, w, count, est, ehands, escores, mover, chosen, later, cfg, target,
                                             temperature, floor, legal, values, lst, lhands, lscores, replies)


@njit(**OPTS)
def resample(weights, k, rng, out):
    """``out[:k]`` := indices drawn in proportion to ``weights`` by systematic resampling (one uniform
    offset from ``rng``): each index appears ``floor`` or ``ceil`` of ``k`` times its share."""
    total = 0.0
    for i in range(weights.shape[0]):
        total += weights[i]
    u = rand_below(rng, 0, 1 << 30) / float(1 << 30)
    cum, j = weights[0] / total, 0
    for i in range(k):
        x = (u + i) / k
        while x > cum and j < weights.shape[0] - 1:
            j += 1
            cum += weights[j] / total
        out[i] = j


class HandReader:
    """Hand reading for one seat's decisions (see the module docstring).

    ``read(view, cfg, target)`` draws the candidate worlds (rows of ``bst``/``bhands``/``bscores``)
    and weighs them; ``bank(k)`` then draws ``k`` of them in proportion to the weights, for
    :func:`.search_compiled.search_values` and the champion's look-ahead."""

    def __init__(self, num_sides, seed, candidates=READ_CANDIDATES, temperature=READ_TEMPERATURE, floor=READ_FLOOR,
                 partner_only=False):
        self.candidates, self.temperature, self.floor = int(candidates), float(temperature), float(floor)
        self.partner_only = bool(partner_only)  # read the partner's placements alone (readable_seats)
        self.rng = make_rng_state(seed, 1)
        self.st, self.hands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.scores = np.zeros((1, num_sides), np.float64)
        self.bst = np.zeros((self.candidates, NUM_FIELDS), np.int8)
        self.bhands = np.zeros((self.candidates, 8), np.int64)
        self.bscores = np.zeros((self.candidates, num_sides), np.float64)
        self.loglik, self.weights = np.zeros(self.candidates), np.zeros(self.candidates)
        rows = _MAX_PLACEMENTS + 1
        self.est, self.ehands = np.zeros((rows, NUM_FIELDS), np.int8), np.zeros((rows, 8), np.int64)
        self.escores = np.zeros((rows, num_sides), np.float64)
        self.mover, self.chosen, self.later = (np.zeros(rows, np.int64) for _ in range(3))
        self.sizes, self.last_draw = np.zeros(4, np.int64), np.zeros(4, np.int64)
        self.legal, self.values = np.zeros(DRAW, np.int64), np.zeros(DRAW, np.float64)
        self.lst, self.lhands = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64)
        self.lscores, self.replies = np.zeros((1, num_sides), np.float64), np.zeros(28, np.float64)
        self.tiles, self.no_forbid = np.zeros(28, np.int64), np.zeros(4, np.int64)
        self.count = 0

    def read(self, view, cfg, target):
        load_view(view, self.st, self.hands, self.scores)
        events = np.array([(e[0], e[1], e[3]) for e in view.events], np.float64).reshape(-1, 3)
        readable = readable_seats(view.seat, view.num_players, self.partner_only)
        self.count = read_placements(self.st, self.hands, self.scores, view.num_players, readable,
                                     events[:, 0].astype(np.int64), events[:, 1].astype(np.int64), events[:, 2],
                                     len(events), np.asarray(view.hand_start_scores, np.float64), self.sizes,
                                     self.last_draw, self.est, self.ehands, self.escores, self.mover, self.chosen,
                                     self.later)
        draw_read_worlds(self.st, self.hands, self.scores, view.seat, view.num_players, self.candidates, self.bst,
                         self.bhands, self.bscores, self.rng, self.tiles, self.no_forbid, self.count, self.est,
                         self.ehands, self.escores, self.mover, self.chosen, self.later, cfg, target, self.temperature,
                         self.floor, self.legal, self.values, self.lst, self.lhands, self.lscores, self.replies,
                         self.loglik)
        top = self.loglik.max()
        if np.isfinite(top):
            np.exp(self.loglik - top, out=self.weights)
        else:  # pragma: no cover - the true hands always explain the placements, so some world does
            self.weights[:] = 1.0

    def bank(self, k) -> tuple:
        """``(bst, bhands, bscores, rows)``: the read worlds and ``k`` rows drawn from them in proportion
        to their weights (the ``bank`` of :meth:`.search_compiled.Searcher.values`)."""
        rows = np.zeros(k, np.int64)
        resample(self.weights, k, self.rng, rows)
        return self.bst, self.bhands, self.bscores, rows
