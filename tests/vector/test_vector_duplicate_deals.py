"""Duplicate deals on the batched env: ``reset(seed, deal_ids)``.

Games sharing a deal id must see the same sequence of deals whatever their
moves: the k-th deal of each is the same tile order (read from the env's
``ORDER`` columns, which hold every hand and the boneyard), and a drawn leader
(a new game, or after a block, R19) is the same draw. Each id is played twice
here, once by random moves and once by greedy ones, so the copies' hands end
differently (a domino in one, a block or a new game in the other).
"""

import numpy as np
import pytest

from allfives_env.agents.greedy import greedy_from_observations
from allfives_env.compiled.state import LEADER, ORDER
from allfives_env.rules.actions import DRAW
from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions

CASES = [dict(num_players=2), dict(num_players=3), dict(num_players=4, target=80),
         dict(num_players=2, hand_size="five_each", target=60),
         dict(num_players=3, first_leader="heaviest_tile", target=60),
         dict(num_players=4, first_leader="heaviest_tile", hand_size="seven_five"),
         dict(num_players=4, episode="hand")]
NEW_GAME, BLOCK, DOMINO = "new game", "block", "domino"


def deal_logs(venv, ids, steps, seed):
    """Play the games of ``venv`` from ``reset(seed, deal_ids=ids)``, even games with random
    moves, odd ones with greedy moves; per game the list of its deals as
    ``(tile order, leader, how the previous hand ended)``."""
    B = venv.num_envs
    out = venv.reset(seed=seed, deal_ids=ids)
    logs = [[] for _ in range(B)]
    record(venv, np.ones(B, bool), np.full(B, NEW_GAME), logs)
    pick = make_rng_state(seed + 1, B)
    points = venv.layout.offset("placement_points")
    random_moves, greedy_moves = np.empty(B, np.int64), np.empty(B, np.int64)
    rows = np.arange(B)
    for _ in range(steps):
        random_legal_actions(out.mask, pick, random_moves)
        greedy_from_observations(out.obs, out.mask, points, greedy_moves)
        actions = np.where(rows % 2 == 0, random_moves, greedy_moves)
        last_tile = [int(h).bit_count() == 1 for h in venv._hands[rows, out.to_move]]
        domino = (actions < DRAW) & np.array(last_tile)
        out = venv.step(actions)
        how = np.where(out.terminated, NEW_GAME, np.where(domino, DOMINO, BLOCK))
        record(venv, out.new_hand, how, logs)
    return logs


def record(venv, new_hand, how, logs):
    for b in np.flatnonzero(new_hand):
        logs[b].append((tuple(venv._st[b, ORDER:ORDER + 28]), int(venv._st[b, LEADER]), str(how[b])))


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_games_sharing_a_deal_id_see_the_same_deals_whatever_their_moves(options):
    copies = 24
    venv = VectorAllFives(2 * copies, **options)
    ids = np.repeat(np.arange(100, 100 + copies), 2)  # games 2i (random) and 2i + 1 (greedy) share an id
    logs = deal_logs(venv, ids, steps=500, seed=len(str(options)))
    compared, diverged, after_block = 0, 0, 0
    for i in range(copies):
        a, b = logs[2 * i], logs[2 * i + 1]
        assert min(len(a), len(b)) >= 2
        for (order_a, leader_a, how_a), (order_b, leader_b, how_b) in zip(a, b):
            assert order_a == order_b  # every hand and the boneyard, in draw order
            if DOMINO not in (how_a, how_b):  # both leaders drawn (R5/V3, R19 after a block)
                assert leader_a == leader_b
            compared += 1
            diverged += how_a != how_b
            after_block += BLOCK in (how_a, how_b)
        assert a[0][0] != logs[(2 * i + 2) % (2 * copies)][0][0]  # another id: another deal
    assert compared > 3 * copies
    if venv.episode == "game":  # (a hand episode: every deal is a new game's)
        assert diverged > 0  # hands that ended differently were followed by the same deal
        assert after_block > 0


def test_deal_ids_arange_is_reset_without_deal_ids():
    plain, by_id = VectorAllFives(40, num_players=3), VectorAllFives(40, num_players=3)
    out_plain, out_id = plain.reset(seed=5), by_id.reset(seed=5, deal_ids=np.arange(40))
    np.testing.assert_array_equal(out_plain.obs, out_id.obs)
    np.testing.assert_array_equal(plain._rng, by_id._rng)
    np.testing.assert_array_equal(plain._st, by_id._st)


def test_reset_without_deal_ids_gives_independent_games():
    venv = VectorAllFives(64, num_players=2)
    logs = deal_logs(venv, None, steps=300, seed=3)
    orders = [deal[0] for log in logs for deal in log]
    assert len(orders) > 2 * 64
    assert len(set(orders)) == len(orders)  # no two deals of any games alike


def test_equal_ids_give_equal_first_positions_and_other_ids_other_ones():
    venv = VectorAllFives(6, num_players=4)
    out = venv.reset(seed=0, deal_ids=[7, 3, 7, 0, 3, 7])
    np.testing.assert_array_equal(out.obs[0], out.obs[2])
    np.testing.assert_array_equal(out.obs[0], out.obs[5])
    np.testing.assert_array_equal(out.obs[1], out.obs[4])
    assert not np.array_equal(out.obs[0], out.obs[1]) and not np.array_equal(out.obs[0], out.obs[3])
    np.testing.assert_array_equal(VectorAllFives(1, num_players=4).reset(seed=0, deal_ids=[7]).obs[0], out.obs[0])


@pytest.mark.parametrize("deal_ids, message", [
    (np.arange(5), r"deal_ids has shape \(5,\); expected \(4,\)"),
    (np.zeros((4, 1), np.int64), r"deal_ids has shape \(4, 1\); expected \(4,\)"),
    (np.arange(4.0), "deal_ids has dtype float64; expected an integer array"),
    (np.ones(4, bool), "deal_ids has dtype bool; expected an integer array"),
    ([0, 1, -2, 3], "deal_ids holds -2; allowed: non-negative integers"),
    ([0, 1, -1, 3], "deal_ids holds -1; allowed: non-negative integers"),
])
def test_bad_deal_ids_raise_and_change_nothing(deal_ids, message):
    venv = VectorAllFives(4, num_players=2)
    before = venv.reset(seed=1).copy()
    rng, st = venv._rng.copy(), venv._st.copy()
    with pytest.raises(ValueError, match=message):
        venv.reset(seed=2, deal_ids=deal_ids)
    np.testing.assert_array_equal(venv._rng, rng)
    np.testing.assert_array_equal(venv._st, st)
    np.testing.assert_array_equal(venv.current().obs, before.obs)
