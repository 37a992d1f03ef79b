"""The compiled engine's own randomness against its distribution: the batched env's deals (Fisher-Yates
over the 28 tiles, R4), the V3 heaviest-tile leader draw and ``random_legal_actions``. The parity tests
cannot see these kernels (the AEC env and the parity tests deal from Python), so each is checked to draw
every outcome about equally often (within 5 standard deviations of the binomial count)."""

import numpy as np

from allfives_env.compiled.rng import seed_streams
from allfives_env.compiled.rules import draw_leader
from allfives_env.compiled.state import NUM_FIELDS, ORDER
from allfives_env.rules.actions import NUM_ACTIONS
from allfives_env.rules.tiles import heaviness
from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions


def test_every_tile_is_dealt_to_some_hand_equally_often():
    """R4: all 28 tiles are shuffled, so each tile is in some player's hand with probability
    ``n * hand_size / 28`` (18/28 with 2 players, 21/28 with 3, 20/28 with 4) and otherwise in the boneyard.
    Over 4,000 batched deals per player count every tile's dealt share is within 5 standard deviations of
    that, [6|6] (the last id, where an off-by-one shuffle leaves a tile in place) included."""
    games = 4000
    for n in (2, 3, 4):
        venv = VectorAllFives(num_envs=games, num_players=n)
        venv.reset(seed=40 + n)
        hands = venv.compiled_state().hands[:, :n]
        dealt = np.bitwise_or.reduce(hands, axis=1)
        p = n * venv.config.tiles_per_hand / 28
        sd = (games * p * (1 - p)) ** 0.5
        counts = np.array([int(((dealt >> t) & 1).sum()) for t in range(28)])
        assert np.all(np.abs(counts - games * p) <= 5 * sd), (n, counts.tolist())


def test_heaviest_tile_draw_is_a_uniform_draw_of_distinct_tiles():
    """V3: each player draws a tile from the 28 (without replacement), the heaviest leads. The kernel draws
    into the deal-order scratch area (``st[b, ORDER + seat]`` is the tile of ``seat``). Over 28,000 draws,
    every tile is seat 0's tile about 1/28 of the time ([6|6], the heaviest, included: it always leads when
    drawn), the tiles of a draw are distinct, and the leader is the seat holding the heaviest one."""
    draws = 28_000
    for n in (2, 3, 4):
        rng = np.zeros(1, np.uint64)
        seed_streams(rng, np.uint64(20 + n))
        st = np.zeros((1, NUM_FIELDS), np.int8)
        first = np.zeros(28, np.int64)
        for _ in range(draws):
            leader = draw_leader(st, 0, rng, n, 1)
            drawn = [int(st[0, ORDER + seat]) for seat in range(n)]
            assert len(set(drawn)) == n
            assert leader == max(range(n), key=lambda seat: heaviness(drawn[seat]))
            first[drawn[0]] += 1
        p = 1.0 / 28
        sd = (draws * p * (1 - p)) ** 0.5
        assert np.all(np.abs(first - draws * p) <= 5 * sd), (n, first.tolist())


def test_random_legal_actions_are_uniform_over_every_legal_action():
    """Rows with 1, 2, 3 and 7 legal actions (the first, the last and some in between): each draw is one of
    the row's legal actions, and over 4000 draws per row every legal action comes up about equally often
    (within 5 standard deviations of the binomial count). A single legal action is always chosen."""
    legal_sets = [[112], [0, 113], [5, 60, 111], [0, 1, 2, 50, 100, 112, 113]]
    mask = np.zeros((len(legal_sets), NUM_ACTIONS), np.int8)
    for row, legal in enumerate(legal_sets):
        mask[row, legal] = 1
    rng_state = make_rng_state(3, len(legal_sets))
    draws = 4000
    counts = [dict.fromkeys(legal, 0) for legal in legal_sets]
    for _ in range(draws):
        actions = random_legal_actions(mask, rng_state)
        for row, action in enumerate(actions):
            assert int(action) in counts[row], (row, int(action))
            counts[row][int(action)] += 1
    for row, legal in enumerate(legal_sets):
        p = 1.0 / len(legal)
        sd = (draws * p * (1 - p)) ** 0.5
        for action, count in counts[row].items():
            assert abs(count - draws * p) <= 5 * sd + 1e-9, (row, action, count, counts[row])
