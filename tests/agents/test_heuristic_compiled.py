"""The compiled heuristic player (agents.heuristic_compiled.heuristic_actions) against HeuristicAgent.act.

B Python games and a B-game :class:`VectorAllFives` get the same deals (through
``set_position``, as ``support.paired_positions`` does for one game) and the same
random moves; at every step the compiled actions for a shuffled list of game
indices must equal the Python agent's on the same positions.
"""

import numpy as np
import pytest
from support import random_states

from allfives_env.agents import search_compiled as S
from allfives_env.agents.heuristic import HeuristicAgent, score_placements
from allfives_env.agents.heuristic_compiled import heuristic_actions
from allfives_env.compiled.state import BONE_POS, F_TARGET, PLAYED_MASK
from allfives_env.rules.actions import DRAW
from allfives_env.rules.game import Game
from allfives_env.rules.scoring import points_for_count, round5
from allfives_env.rules.tiles import TILE_PIPS, mask_to_tiles
from allfives_env.rules.view import player_view
from allfives_env.vector import VectorAllFives

CASES = [dict(num_players=2), dict(num_players=3), dict(num_players=4),
         dict(num_players=4, divisor=3, target=75), dict(num_players=3, hand_size="five_each", target=60),
         dict(num_players=2, hand_scoring="bonus_net", target=100)]


def paired_batch(options, num_games, steps, seed):
    """Yield ``(games, venv)`` before each of ``steps`` random joint moves: Python games and a
    batched env holding the same positions; a game whose hand ended is dealt afresh in both
    (random scores below the target, so scoring to win happens)."""
    rng = np.random.default_rng(seed)
    venv = VectorAllFives(num_games, **options)
    venv.reset(seed=seed)
    config = venv.config
    games = [Game(config) for _ in range(num_games)]

    def deal(b):
        scores = [float(x) for x in rng.integers(0, int(0.9 * config.target_points), config.num_sides) // 5 * 5]
        game = games[b]
        game.start_game(rng, scores=scores)
        venv.set_position([b], [[mask_to_tiles(h) for h in game.hands]], [list(game.boneyard)], [game.leader],
                          [scores])

    for b in range(num_games):
        deal(b)
    for _ in range(steps):
        yield games, venv
        actions = np.array([rng.choice(game.legal_actions()) for game in games], np.int64)
        for game, action in zip(games, actions):
            game.step(int(action))
        venv.step(actions)
        for b, game in enumerate(games):
            if game.hand_over:
                deal(b)


def python_action(game, agent):
    view = player_view(game, game.to_move)
    return agent.act(view, list(view.legal_actions))


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_compiled_heuristic_actions_equal_the_python_agent(options):
    agent = HeuristicAgent()
    rng = np.random.default_rng(1)
    out = np.empty(40, np.int64)
    chosen, forced = 0, 0
    for games, venv in paired_batch(options, num_games=24, steps=60, seed=len(str(options))):
        indices = rng.integers(0, venv.num_envs, size=40)  # a shuffled list, repeats allowed
        got = heuristic_actions(venv, indices, out)
        assert got is out
        for i, b in enumerate(indices):
            game = games[b]
            assert venv.legal_actions(b) == game.legal_actions()  # the same position
            assert got[i] == python_action(game, agent), (b, game.legal_actions())
            placements = [a for a in game.legal_actions() if a < DRAW]
            chosen += len(placements) >= 2
            forced += not placements
    assert chosen > 400 and forced > 10


def test_the_weights_of_a_given_agent_are_used():
    agent = HeuristicAgent(reply_weight=2.0, control_weight=0.0, stuck_penalty=10.0, shed_weight=0.5,
                           late_shed_weight=0.0, double_bonus=4.0)
    default = HeuristicAgent()
    differs = 0
    for games, venv in paired_batch(dict(num_players=3), num_games=16, steps=40, seed=2):
        got = heuristic_actions(venv, np.arange(16), agent=agent)
        assert got.tolist() == [python_action(game, agent) for game in games]
        differs += sum(python_action(game, default) != a for game, a in zip(games, got))
    assert differs > 0


def test_the_state_is_only_read():
    venv = VectorAllFives(32, num_players=4)
    venv.reset(seed=4)
    before = [a.copy() for a in venv.compiled_state()]
    heuristic_actions(venv, np.arange(32))
    for was, now in zip(before, venv.compiled_state()):
        np.testing.assert_array_equal(was, now)
    assert venv.compiled_state().st is venv._st  # the live arrays, not copies


def _read_only(array):
    array.flags.writeable = False
    return array


@pytest.mark.parametrize("games, out, message", [
    (np.array([[0, 1]]), None, "games must be a 1-D array of integer game indices"),
    (np.array([0.0, 1.0]), None, "games must be a 1-D array of integer game indices"),
    ([0, 8], None, r"games holds indices outside 0..7"),
    ([-1], None, r"games holds indices outside 0..7"),
    ([0, 1], np.empty(3, np.int64), r"out must be a writable int64 array of shape \(2,\)"),
    ([0, 1], np.empty(2, np.int32), r"out must be a writable int64 array of shape \(2,\)"),
    ([0, 1], _read_only(np.empty(2, np.int64)), r"out must be a writable int64 array"),  # was a numba TypingError
])
def test_bad_games_or_out_raise(games, out, message):
    venv = VectorAllFives(8, num_players=2)
    venv.reset(seed=0)
    with pytest.raises(ValueError, match=message):
        heuristic_actions(venv, games, out)


def test_no_games_give_no_actions():
    venv = VectorAllFives(4)
    venv.reset(seed=0)
    assert heuristic_actions(venv, []).shape == (0,)


def test_a_domino_values_the_expected_pips_with_the_python_rounding():
    """Regression: the expected opponents' pips of a domino (rule 1) are held * (sum / count)
    truncated, as in Python: 13 unseen tiles of 63 pips, all held by the opponent, give
    62.99... -> round5(62) = 60, where 13 * 63 / 13 = 63 would round to 65."""
    rng = np.random.default_rng(0)
    own = 27  # 6|6, the seat's last tile: leading it is a domino (scoring nothing: count 12)
    opponent = next(pick for pick in (rng.choice(own, 13, replace=False) for _ in range(100000))
                    if sum(TILE_PIPS[t] for t in pick) == 63)
    played = [t for t in range(own) if t not in opponent]
    (game,), venv = next(paired_batch(dict(num_players=2), num_games=1, steps=1, seed=0))
    seat = game.to_move
    game.hands[seat], game.hands[1 - seat] = 1 << own, sum(1 << int(t) for t in opponent)
    for i, t in enumerate(played):
        game.played_by[t] = i % 2
    game.bone_pos = len(game.boneyard)  # nothing left to draw
    st, hands = venv._st, venv._hands
    hands[0, :2] = game.hands[:2]
    for s in range(2):
        hands[0, PLAYED_MASK + s] = sum(1 << t for t in played if game.played_by[t] == s)
    st[0, BONE_POS] = 28
    view = player_view(game, seat)
    assert score_placements(view, [4 * own], HeuristicAgent()) == {4 * own: 160.0}
    scratch = S.Searcher(2)
    n = S.legal_placements(st, 0, hands, scratch.legal)
    S.heuristic_values(st, 0, hands, venv._scores, venv._cfg, venv._fcfg[F_TARGET], scratch.legal, n,
                       S.HEURISTIC_WEIGHTS, scratch.wst, scratch.whands, scratch.wscores, 2, scratch.replies,
                       scratch.prior)
    assert list(scratch.legal[:n]) == [4 * own] and scratch.prior[0] == 160.0


@pytest.mark.parametrize("num_players", [3, 4])
def test_a_domino_is_valued_with_the_opponents_expected_pips_not_the_partners(num_players):
    """Rule 1 of the heuristic (R21): a domino adds the expected bonus, the unseen pips the *opponents* hold
    (their hand sizes times the unseen mean), rounded; with 4 players the partner's tiles pay nothing.
    Catches (heuristic.py _expected_opponent_pips: ``seat_side[s] != side`` -> ``s != seat``)."""
    weights = HeuristicAgent()
    checked = 0
    for game, _ in random_states(num_players, games=6, seed=40 + num_players, target=1000):
        seat = game.to_move
        if game.hands[seat].bit_count() != 1 or game.legal_actions()[0] >= 112:
            continue
        view = player_view(game, seat)
        unseen = mask_to_tiles(view.unseen)
        opponents = [s for s in range(num_players) if game.config.side_of(s) != game.config.side_of(seat)]
        expected = sum(view.hand_sizes[s] for s in opponents) * sum(TILE_PIPS[t] for t in unseen) / len(unseen)
        values = score_placements(view, list(view.legal_actions), weights)
        for action in view.legal_actions:
            points = points_for_count(game.count_after(action >> 2, action & 3), game.divisor)
            assert values[action] == pytest.approx(points + round5(expected) + 100.0)
        checked += 1
    assert checked >= 3
