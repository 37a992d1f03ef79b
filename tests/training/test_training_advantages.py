"""GAE over per-seat chains, checked against sequences computed by hand."""

import numpy as np
import pytest

from training.advantages import chain_gae


def test_single_chain_matches_hand_computation():
    # one seat, three decisions, the last ends the episode; gamma 0.9, lambda 0.8
    reward = [1.0, 0.0, 2.0]
    value = [0.5, 0.2, 0.1]
    adv, ret, trainable = chain_gae(reward, value, [False, False, True], [1, 2, -1], gamma=0.9, lam=0.8)
    # delta2 = 2 - 0.1 = 1.9                       A2 = 1.9
    # delta1 = 0 + 0.9*0.1 - 0.2 = -0.11           A1 = -0.11 + 0.72*1.9   = 1.258
    # delta0 = 1 + 0.9*0.2 - 0.5 = 0.68            A0 = 0.68  + 0.72*1.258 = 1.58576
    assert adv == pytest.approx([1.58576, 1.258, 1.9])
    assert ret == pytest.approx([2.08576, 1.458, 2.0])
    assert trainable.all()


def test_interleaved_chains_with_a_pending_tail():
    # seats A and B alternate: 0(A) 1(B) 2(A) 3(B, episode end) 4(A, pending: the rollout ended)
    reward = [1.0, -1.0, 0.5, 2.0, 0.3]
    value = [0.1, 0.2, 0.3, 0.4, 0.6]
    done = [False, False, False, True, False]
    nxt = [2, 3, 4, -1, -1]
    adv, ret, trainable = chain_gae(reward, value, done, nxt, gamma=0.9, lam=0.5)
    # B: A3 = 2 - 0.4 = 1.6; A1 = (-1 + 0.9*0.4 - 0.2) + 0.45*1.6 = -0.12
    # A: 4 is pending (not trained now); 2 bootstraps from V(4) without continuing:
    #    A2 = 0.5 + 0.9*0.6 - 0.3 = 0.74; A0 = (1 + 0.9*0.3 - 0.1) + 0.45*0.74 = 1.503
    assert adv == pytest.approx([1.503, -0.12, 0.74, 1.6, 0.0])
    assert list(trainable) == [True, True, True, True, False]
    assert ret[:4] == pytest.approx(np.array([1.503, -0.12, 0.74, 1.6]) + np.array(value[:4]))


def test_invalid_slots_are_skipped_and_lambda_one_is_monte_carlo():
    reward = [1.0, 9.0, 2.0, 3.0]
    value = [0.3, 5.0, 0.2, 0.7]
    valid = [True, False, True, True]
    adv, ret, trainable = chain_gae(reward, value, [False, False, False, True], [2, -1, 3, -1],
                                    gamma=1.0, lam=1.0, valid=valid)
    assert list(trainable) == [True, False, True, True]
    assert ret[0] == pytest.approx(6.0) and ret[2] == pytest.approx(5.0) and ret[3] == pytest.approx(3.0)
