"""Differential test: the numba vector env against the AEC env (pure-Python engine).

Both get the same deals (``set_position`` mirrors the AEC env's reset options, and
each next hand the AEC env deals is copied into the vector env) and the same
seeded action choices; every step compares to_move, observation, mask,
rewards, termination, scores and the final observation/scores of ended
episodes. Runs over 2/3/4 players, the variants V1-V5, both episode kinds,
every reward mode and auto_forced. Start scores near the target make R3/R25
endings frequent.
"""

from collections import Counter

import numpy as np
import pytest

from allfives_env import env as aec_env
from allfives_env.rules.actions import DRAW, PASS
from allfives_env.rules.tiles import mask_to_tiles
from allfives_env.vector import VectorAllFives

# (options, games in parallel, steps): every row plays thousands of decisions
CASES = [
    (dict(num_players=2), 40, 300),
    (dict(num_players=3), 40, 300),
    (dict(num_players=4), 40, 300),
    (dict(num_players=2, episode="hand", reward="win"), 40, 240),
    (dict(num_players=3, episode="hand", reward="zero_sum", hand_size="five_each"), 40, 240),
    (dict(num_players=4, episode="hand", reward="win", auto_forced=True), 40, 240),
    (dict(num_players=3, reward="win", target=60, hand_scoring="bonus_net"), 40, 240),
    (dict(num_players=2, hand_size="five_each", hand_scoring="penalty", divisor=3, auto_forced=True), 40, 240),
    (dict(num_players=3, hand_size="seven_five", first_leader="heaviest_tile", reward="zero_sum"), 40, 240),
    (dict(num_players=4, target=75, hand_scoring="bonus_net", divisor=3, reward="zero_sum"), 40, 240),
    (dict(num_players=2, hand_size="seven_five", target=40, first_leader="heaviest_tile", reward="win",
          auto_forced=True), 40, 240),
    (dict(num_players=3, hand_size="five_each", target=30, reward="win"), 40, 240),
]


def _deal(rng, config):
    order = [int(t) for t in rng.permutation(28)]
    n, size = config.num_players, config.tiles_per_hand
    hands = [order[i * size:(i + 1) * size] for i in range(n)]
    return hands, order[n * size:], int(rng.integers(n))


def _start_scores(rng, config):
    """Zeros half the time, else scores close to the target (R3/R25 endings)."""
    sides, target = config.num_sides, config.target_points
    if rng.random() < 0.5:
        return [0.0] * sides
    half = 2 if config.num_players == 3 else 1  # R24: half points occur with 3 players
    scores = []
    for _ in range(sides):
        value = np.floor(rng.uniform(0.7 * target, target) * half) / half
        scores.append(float(min(value, np.ceil(target * half - 1) / half)))
    return scores


def _aec_deal(game):
    hands = [mask_to_tiles(h) for h in game.hands]
    return hands, list(game.boneyard[game.bone_pos:]), game.leader, list(game.scores)


def _observe(env, where, vector_obs):
    """The AEC env's observation of the agent to move; an error there is reported
    as a disagreement, with what the vector env computed."""
    try:
        return env.observe(env.agent_selection)
    except Exception as err:
        raise AssertionError(f"{where}: the AEC env's observe() raised {err!r}; the vector env's "
                             f"placement points there: {vector_obs[-112:][vector_obs[-112:] > 0]}") from err


def _compare_current(venv, out, envs, b, where):
    env = envs[b]
    game = env.unwrapped.game
    seen = _observe(env, where, out.obs[b])
    assert out.to_move[b] == game.to_move, where
    np.testing.assert_array_equal(out.mask[b], seen["action_mask"], err_msg=where)
    if not np.array_equal(out.obs[b], seen["observation"]):
        diff = np.flatnonzero(out.obs[b] != seen["observation"])
        names = [name for name, (off, shape) in venv.layout.parts.items()
                 for i in diff if off <= i < off + int(np.prod(shape))]
        raise AssertionError(f"{where}: observation differs in {sorted(set(names))}")
    np.testing.assert_array_equal(out.scores[b], game.scores, err_msg=where)


def run_differential(options, num_games, steps, seed):
    venv = VectorAllFives(num_games, **options)
    config = venv.config
    n = config.num_players
    agents = [f"player_{s}" for s in range(n)]
    envs = [aec_env(backend="python", **options) for _ in range(num_games)]  # the pure-Python reference
    rng = np.random.default_rng(seed)
    stats = Counter()

    def fresh_episode(b):
        hands, boneyard, leader = _deal(rng, config)
        scores = _start_scores(rng, config)
        envs[b].reset(seed=int(rng.integers(2**31)),
                      options=dict(hands=hands, boneyard=boneyard, leader=leader, scores=scores))
        return hands, boneyard, leader, scores

    venv.reset(seed=seed)
    deals = [fresh_episode(b) for b in range(num_games)]
    out = venv.set_position(range(num_games), *map(list, zip(*deals)))
    for b in range(num_games):
        _compare_current(venv, out, envs, b, f"game {b} after reset")

    for step in range(steps):
        actions = np.empty(num_games, np.int64)
        last_tile = np.zeros(num_games, bool)
        hand_numbers = []
        for b, env in enumerate(envs):
            mask = env.unwrapped.infos[env.agent_selection]["action_mask"]
            legal = np.flatnonzero(mask)
            actions[b] = legal[rng.integers(len(legal))]
            game = env.unwrapped.game
            last_tile[b] = actions[b] < DRAW and game.hands[game.to_move].bit_count() == 1
            hand_numbers.append(game.hand_number)
            stats["draw" if actions[b] == DRAW else "pass" if actions[b] == PASS else "play"] += 1
        out = venv.step(actions).copy()
        redo = {}
        for b, env in enumerate(envs):
            env.step(int(actions[b]))
            game = env.unwrapped.game
            where = f"game {b} step {step} action {actions[b]} options {options}"
            rewards = [env.rewards[a] for a in agents]
            np.testing.assert_array_equal(out.rewards[b], rewards, err_msg=where)
            terminated = all(env.terminations.values())
            assert out.terminated[b] == terminated, where
            if terminated:
                stats["episodes"] += 1
                stats["target" if game.game_over else "hand_end"] += 1
                stats[f"winners{len(game.winners)}"] += game.game_over
                np.testing.assert_array_equal(out.final_scores[b], game.scores, err_msg=where)
                assert out.final_seat[b] == game.to_move, where
                final = _observe(env, where, out.final_obs[b])["observation"]
                np.testing.assert_array_equal(out.final_obs[b], final, err_msg=where)
                assert out.new_hand[b], where
                redo[b] = fresh_episode(b)
            elif game.hand_number != hand_numbers[b]:
                stats["next_hand"] += 1
                assert out.new_hand[b], where
                if last_tile[b]:  # R19: the player who dominoed leads the next hand
                    assert out.to_move[b] == game.leader, where
                redo[b] = _aec_deal(game)
            else:
                assert not out.new_hand[b], where
                _compare_current(venv, out, envs, b, where)
        if redo:
            keys = list(redo)
            out = venv.set_position(keys, *map(list, zip(*(redo[k] for k in keys))))
            for b in keys:
                _compare_current(venv, out, envs, b, f"game {b} step {step} after the new deal")
    print(options, dict(stats))
    return stats


@pytest.mark.parametrize("options,num_games,steps", CASES, ids=[str(i) for i in range(len(CASES))])
def test_vector_matches_aec_every_step(options, num_games, steps):
    stats = run_differential(options, num_games, steps, seed=len(str(options)))
    assert stats["episodes"] >= 20, stats
    assert stats["play"] > 0, stats
    if not options.get("auto_forced"):
        assert stats["draw"] > 0, stats
