"""The search with policy rollouts (allfives_env/vector/policy_search.py, ``search:policy=PATH``).

Its rollouts must be exactly a Python play-out of the same position in which the
shipped PPO policy (PPOAgent.act on each seat's view) plays the searching side
and greedy plays the others; the batched policy must pick what the one-position
policy picks.
"""

import numpy as np
import pytest

from allfives_env.agents.greedy import greedy_action
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.agents.ppo.features import PolicyInput
from allfives_env.arena.match import run_match
from allfives_env.rules.actions import DRAW
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.view import player_view
from allfives_env.vector import VectorAllFives, make_rng_state, random_legal_actions
from allfives_env.compiled.rules import apply_action
from allfives_env.compiled.state import F_TARGET, GAME_OVER, HAND_OVER, WINNERS
from allfives_env.agents import search_compiled as S
from allfives_env.vector.policy_search import PolicySearcher

from support import paired_positions, placements

CHECKPOINTS = {2: "checkpoints/ppo_2p.pt", 3: "checkpoints/ppo_3p.pt", 4: "checkpoints/ppo_4p.pt"}


def _policy(num_players, seat=0):
    policy = PPOAgent(CHECKPOINTS[num_players], infer="off")  # as search:policy= builds it
    policy.reset(seat, RulesConfig(num_players=num_players), np.random.default_rng(0))
    return policy


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_batched_best_placements_equal_the_policy_one_position_at_a_time(num_players):
    policy = _policy(num_players)
    venv = VectorAllFives(num_envs=64, num_players=num_players)
    out = venv.reset(seed=num_players)
    pick = make_rng_state(7, venv.num_envs)
    policy_input = PolicyInput(policy.features, num_players, venv.config.divisor)
    compared = 0
    for _ in range(30):
        choice = out.mask[:, :DRAW].sum(1) >= 2
        if choice.any():
            x = policy_input(out.obs[choice], out.mask[choice])
            got = policy.best_placements(x, out.mask[choice])
            for i, (row, mask) in enumerate(zip(x, out.mask[choice])):
                legal = np.flatnonzero(mask)
                assert got[i] == legal[np.argmax(policy.logits(row, legal)[legal])]
                compared += 1
        out = venv.step(random_legal_actions(out.mask, pick))
    assert compared > 300


def _python_play_out(game, action, side, policy):
    """The hand after ``action``, played to its end: ``policy`` for ``side``'s seats, greedy for the others."""
    g = game.clone()
    g.step(action)
    while not g.hand_over:
        legal = g.legal_actions()
        if g.config.side_of(g.to_move) == side:
            g.step(policy.act(player_view(g, g.to_move), legal))
        else:
            g.step(greedy_action(g, legal))
    return g


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_policy_rollouts_equal_a_python_play_out(num_players):
    """From the true position (no sampling), each placement's compiled play-out ends with the same
    scores and the same game result as the Python one."""
    policy = _policy(num_players)
    searcher = PolicySearcher(policy, RulesConfig(num_players=num_players).num_sides, samples=1)
    positions = 0
    for game, venv in paired_positions(dict(num_players=num_players), seed=num_players, hands_to_play=3):
        legal = placements(game)
        if len(legal) < 2:
            continue
        side = game.config.side_of(game.to_move)
        searcher.reserve(len(legal))
        for k, action in enumerate(legal):
            S.copy_game(venv._st, venv._hands, venv._scores, 0, searcher.tst, searcher.thands, searcher.tscores, k)
            apply_action(searcher.tst, k, searcher.thands, searcher.tscores, searcher.tgains, venv._cfg,
                           venv._fcfg[F_TARGET], action)
        searcher.play_out(len(legal), side, venv._cfg, venv._fcfg, venv._off)
        for k, action in enumerate(legal):
            want = _python_play_out(game, action, side, policy)
            assert list(searcher.tscores[k]) == list(want.scores)
            assert bool(searcher.tst[k, GAME_OVER]) == want.game_over
            assert searcher.tst[k, HAND_OVER] == 1
        positions += 1
        if positions == 12:
            break
    assert positions == 12


def test_policy_search_values_average_the_play_outs_and_add_the_prior():
    """``values`` = the mean over worlds of the side's gain minus the others' mean (plus or minus
    win_value), then prior_weight times the heuristic: checked by recomputing from the trial rows."""
    policy = _policy(4)
    for game, venv in paired_positions(dict(num_players=4), seed=5, hands_to_play=2):
        if len(placements(game)) >= 3:
            break
    bare = PolicySearcher(policy, 2, samples=6, prior_weight=0.0, seed=9)
    legal, values = bare.values(venv._st, venv._hands, venv._scores, 0, venv._cfg, venv._fcfg, venv._off)
    side = game.config.side_of(game.to_move)
    gains = bare.tscores[:6 * len(legal), :] - np.array(game.scores)
    won = bare.tst[:6 * len(legal), GAME_OVER] * np.where((bare.tst[:6 * len(legal), WINNERS] >> side) & 1, 1, -1)
    per_trial = gains[:, side] - gains[:, 1 - side] + 100.0 * won
    assert values == pytest.approx(per_trial.reshape(6, len(legal)).mean(0))
    with_prior = PolicySearcher(policy, 2, samples=6, prior_weight=1.0, seed=9)
    _, values_prior = with_prior.values(venv._st, venv._hands, venv._scores, 0, venv._cfg, venv._fcfg, venv._off)
    searcher = S.Searcher(2)
    n = S.legal_placements(venv._st, 0, venv._hands, searcher.legal)
    S.heuristic_values(venv._st, 0, venv._hands, venv._scores, venv._cfg, venv._fcfg[F_TARGET], searcher.legal, n,
                       S.HEURISTIC_WEIGHTS, searcher.wst, searcher.whands, searcher.wscores, 2, searcher.replies,
                       searcher.prior)
    assert values_prior == pytest.approx(values + np.minimum(searcher.prior[:n], 1e3))


def test_search_agent_policy_option():
    from allfives_env.agents import make_agent

    match = run_match(RulesConfig(num_players=4), [f"search:policy={CHECKPOINTS[4]},samples=4", "greedy"], 4, seed=1)
    assert match.to_dict()["agents"][0]["games"] == 4
    assert make_agent(f"search:policy={CHECKPOINTS[4]}").engine == "compiled"
    with pytest.raises(ValueError, match="compiled engine only"):
        make_agent(f"search:policy={CHECKPOINTS[4]},engine=python")
    agent = make_agent(f"search:policy={CHECKPOINTS[2]}")
    with pytest.raises(ValueError, match="trained for 2 players"):
        agent.reset(0, RulesConfig(num_players=4), np.random.default_rng(0))
    with pytest.raises(ValueError, match="checkpoint not found"):
        make_agent("search:policy=missing.pt")
