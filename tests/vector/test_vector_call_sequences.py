"""Property test: random sequences of valid and invalid calls on the batched env (``VectorAllFives``).

2/3/4 players, game and hand episodes, auto_forced on and off, every reward mode, 1 to 4 games.
After every call:

* every game has a legal action, each legal placement's tile is in the mover's hand (the observation's
  ``hand`` part), and with ``auto_forced`` no game asks for a single draw or pass;
* a running game has no side at its target (R3, R25: reaching it ends the game at once);
* every episode pays each seat what the score sheet says: ``points``, its side's final score minus its
  start score; ``zero_sum``, that minus the mean of the other sides' gains; ``win``, +1 to the side with
  the highest score once a side reached the target (R25; 0 to each of tied sides), or in a hand that
  did not end the game to the side that gained the most in it, -1 to the others, and nothing before
  the episode's last step;
* an invalid call (an illegal or out-of-range action, a bad shape or dtype, a bad viewer, a bad deal,
  bad deal ids, a state of other options) raises and leaves every game as it was;
* a saved state replays exactly: loaded again, the same actions give the same outputs;
* games given one deal id by ``reset`` start from the same deal.
"""

from dataclasses import dataclass, field, fields

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfives_env.env.rewards import ranked_winners, side_outcomes
from allfives_env.rules.actions import DRAW, NUM_ACTIONS, PASS
from allfives_env.vector import SKIP, VectorAllFives, VectorStep

INVALID = (ValueError, TypeError)
STEP_OPS = ("step", "step_some", "step_viewers")
VALID_OPS = STEP_OPS + ("step", "step", "save", "replay", "set_position", "reset_ids")
INVALID_OPS = ("illegal", "out_of_range", "wrong_shape", "float_actions", "bad_viewer", "bad_deal", "bad_ids",
               "other_state")


def other_state(num_players):
    """A state saved by an env of another player count (refused by load_state_dict)."""
    other = VectorAllFives(1, num_players=2 if num_players != 2 else 3)
    other.reset(seed=0)
    return other.state_dict()


def same_state(a, b) -> bool:
    return all(np.array_equal(a[part][name], b[part][name]) for part in ("games", "out") for name in a[part]) \
        and a["started"] == b["started"]


def expected_payments(mode, final_scores, start_scores, target, side_of):
    """Each seat's episode total as the score sheet says (per side, then per seat)."""
    gains = final_scores - start_scores
    sides = len(gains)
    if mode == "points":
        per_side = gains
    elif mode == "zero_sum":
        per_side = [g - (gains.sum() - g) / (sides - 1) for g in gains]
    else:  # R25: the best score once the target is reached; in a hand that did not end the game, the hand's gains
        ranked = final_scores if final_scores.max() >= target else gains
        per_side = side_outcomes(ranked_winners(list(ranked)), sides)
    return [per_side[side] for side in side_of]


class Books:
    """What each seat has been paid since its episode started, and the scores it started from."""

    def __init__(self, venv, out):
        self.side_of = [venv.config.side_of(s) for s in range(venv.num_players)]
        self.mode, self.target = venv.reward_mode, venv.config.target_points
        self.paid = np.zeros((venv.num_envs, venv.num_players))
        self.start = out.scores.copy()

    def restart(self, games, out):
        self.paid[games] = 0.0
        self.start[games] = out.scores[games]

    def add(self, out, moved):
        """Book one step's rewards; check the episodes that ended against their score sheets."""
        assert not out.rewards[~moved].any(), "a game that did not move was paid"
        self.paid += out.rewards
        for b in np.flatnonzero(out.terminated):
            expected = expected_payments(self.mode, out.final_scores[b], self.start[b], self.target, self.side_of)
            np.testing.assert_allclose(self.paid[b], expected, atol=1e-4, err_msg=f"game {b}, mode {self.mode}")
            self.restart([b], out)
        if self.mode == "win":
            assert not self.paid[~out.terminated].any(), "'win' paid before an episode's end"


@dataclass
class Saved:
    """A saved state and the steps made since: (actions, viewers, a copy of the output)."""
    state: dict
    steps: list = field(default_factory=list)


def check_invariants(venv, out):
    target = venv.config.target_points
    hands = venv.views(out.obs)["hand"]
    for b in range(venv.num_envs):
        legal = np.flatnonzero(out.mask[b])
        assert len(legal) > 0, f"game {b} has no legal action"
        placements = legal[legal < DRAW]
        assert hands[b, placements // 4].all(), f"game {b} may place a tile it does not hold"
        assert 0 <= out.to_move[b] < venv.num_players
        if venv.auto_forced:
            assert legal.tolist() not in ([DRAW], [PASS]), f"game {b} asks for a forced move"
        assert (out.scores[b] < target).all(), f"game {b} runs on at {out.scores[b]} (target {target})"
    assert np.isfinite(out.obs).all()


def legal_actions(out, rng):
    return np.array([rng.choice(np.flatnonzero(row)) for row in out.mask], np.int64)


def random_deal(config, rng):
    order = rng.permutation(28).tolist()
    n, size = config.num_players, config.tiles_per_hand
    return [order[i * size:(i + 1) * size] for i in range(n)], order[n * size:], int(rng.integers(n))


def invalid_call(venv, out, op, rng):
    """Make one call that must be refused."""
    B, n = venv.num_envs, venv.num_players
    actions = legal_actions(out, rng)
    if op == "illegal":
        b = int(rng.integers(B))
        actions[b] = rng.choice(np.flatnonzero(out.mask[b] == 0))
        venv.step(actions)
    elif op == "out_of_range":
        actions[int(rng.integers(B))] = rng.choice([NUM_ACTIONS, SKIP - 1, 10**6])
        venv.step(actions)
    elif op == "wrong_shape":
        venv.step(np.append(actions, actions[0]))
    elif op == "float_actions":
        venv.step(actions.astype(np.float64))
    elif op == "bad_viewer":
        viewers = np.full(B, -1, np.int64)
        viewers[int(rng.integers(B))] = n
        venv.step(actions, final_viewers=viewers)
    elif op == "bad_deal":
        hands, bone, leader = random_deal(venv.config, rng)
        hands[0][0] = hands[1][0]  # one tile twice
        venv.set_position([int(rng.integers(B))], [hands], [bone], [leader])
    elif op == "bad_ids":
        ids = np.zeros(B, np.int64)
        ids[int(rng.integers(B))] = -1
        venv.reset(seed=1, deal_ids=ids)
    else:
        venv.load_state_dict(other_state(n))


def refused(venv, out, op, rng):
    before = venv.state_dict()
    with pytest.raises(INVALID):
        invalid_call(venv, out, op, rng)
    assert same_state(before, venv.state_dict()), f"{op} changed the games"


def steps(venv, out, op, count, rng, books, saved):
    """``count`` steps of random legal actions (some games SKIPped, or chosen final viewers)."""
    for _ in range(count):
        actions = legal_actions(out, rng)
        if op == "step_some":
            actions[rng.random(venv.num_envs) < 0.5] = SKIP
        viewers = rng.integers(-1, venv.num_players, venv.num_envs) if op == "step_viewers" else None
        out = venv.step(actions, final_viewers=viewers)
        books.add(out, actions != SKIP)
        if viewers is not None:
            ended = out.terminated & (viewers >= 0)
            assert (out.final_seat[ended] == viewers[ended]).all()
        if saved is not None:
            saved.steps.append((actions, viewers, out.copy()))
        check_invariants(venv, out)
    return out


def replay(venv, saved):
    """Load the saved state, make the same steps again: the same outputs, and the same state at the end."""
    after = venv.state_dict()
    venv.load_state_dict(saved.state)
    for actions, viewers, recorded in saved.steps:
        out = venv.step(actions, final_viewers=viewers)
        for part in fields(VectorStep):
            np.testing.assert_array_equal(getattr(out, part.name), getattr(recorded, part.name), err_msg=part.name)
    assert same_state(after, venv.state_dict()), "a replay from a saved state ended elsewhere"


def new_positions(venv, rng, books):
    """Random deals and scores in some games."""
    games = sorted(rng.choice(venv.num_envs, size=int(rng.integers(1, venv.num_envs + 1)), replace=False).tolist())
    deals = [random_deal(venv.config, rng) for _ in games]
    scores = [[float(5 * rng.integers(0, 5)) for _ in range(venv.num_sides)] for _ in games]
    out = venv.set_position(games, *map(list, zip(*deals)), scores=scores)
    books.restart(games, out)
    np.testing.assert_array_equal(out.scores[games], scores)
    check_invariants(venv, out)
    return out


def reset_with_shared_deals(venv, seed, rng, books):
    """A reset with deal ids drawn from two: the games of one id hold the same hands and boneyard."""
    ids = rng.integers(0, 2, venv.num_envs)
    out = venv.reset(seed=seed, deal_ids=ids)
    books.restart(list(range(venv.num_envs)), out)
    games = venv.state_dict()["games"]
    for b in range(1, venv.num_envs):
        for a in range(b):
            if ids[a] == ids[b]:
                np.testing.assert_array_equal(games["st"][a], games["st"][b])
                np.testing.assert_array_equal(games["hands"][a], games["hands"][b])
                np.testing.assert_array_equal(out.obs[a], out.obs[b])
    check_invariants(venv, out)
    return out


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    num_envs=st.integers(1, 4),
    num_players=st.sampled_from([2, 3, 4]),
    episode=st.sampled_from(["game", "hand"]),
    reward=st.sampled_from(["points", "zero_sum", "win"]),
    auto_forced=st.booleans(),
    target=st.sampled_from([30, 100, None]),  # None: the R3 target
    seed=st.integers(0, 2**32 - 1),
    ops=st.lists(st.tuples(st.sampled_from(VALID_OPS + INVALID_OPS), st.integers(1, 40)), min_size=1, max_size=14),
)
def test_random_call_sequences_keep_the_batched_env_consistent(num_envs, num_players, episode, reward, auto_forced,
                                                               target, seed, ops):
    venv = VectorAllFives(num_envs, num_players=num_players, episode=episode, reward=reward, auto_forced=auto_forced,
                          target=target)
    rng = np.random.default_rng(seed)
    out = venv.reset(seed=seed)
    books, saved = Books(venv, out), None
    check_invariants(venv, out)
    for op, count in ops:
        if op in INVALID_OPS:
            refused(venv, out, op, rng)
        elif op in STEP_OPS:
            out = steps(venv, out, op, count, rng, books, saved)
        elif op == "save":
            saved = Saved(venv.state_dict())
        elif op == "replay" and saved is not None:
            replay(venv, saved)
        elif op == "set_position":
            out, saved = new_positions(venv, rng, books), None
        elif op == "reset_ids":
            out, saved = reset_with_shared_deals(venv, count, rng, books), None
