"""``ppo:A.pt,ensemble=B.pt+C.pt``: the mean of the members' legal log-probabilities, and its errors."""

import numpy as np
import pytest
import torch

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.agent import CheckpointError, load_policy
from allfives_env.agents.ppo.features import PolicyInput, action_blocks
from allfives_env.agents.ppo.network import PolicyNet
from allfives_env.arena.match import run_match
from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.view import player_view
from training.checkpoint import export_policy

FEATURES = "reply_control"


def small_policy(tmp_path, name, seed):
    """A small 4-player policy file with random (non-zero) weights, so members disagree."""
    rules = load_policy("checkpoints/ppo_4p.pt")[1]
    obs_dim = PolicyInput(FEATURES, 4, rules.divisor).size
    torch.manual_seed(seed)
    net = PolicyNet(obs_dim, [32], action_width=8, action_inputs=action_blocks(FEATURES, 4))
    with torch.no_grad():
        net.policy_head.weight.normal_()
        net.action_out.weight.normal_()
    path = str(tmp_path / f"{name}.pt")
    export_policy(path, net, rules, features=FEATURES)
    return path


def positions(count=40, seed=3):
    """Yields (view of the seat to move, legal actions) with at least two legal actions, from random 4-player
    play. A view reads the live game, so use each one before asking for the next."""
    rng = np.random.default_rng(seed)
    game = Game(RulesConfig(num_players=4))
    game.start_game(rng)
    found = 0
    while found < count:
        if game.game_over:
            game = Game(RulesConfig(num_players=4))
            game.start_game(rng)
        if game.hand_over:
            game.start_next_hand(rng)
            continue
        actions = game.legal_actions()
        if len(actions) > 1:
            found += 1
            yield player_view(game, game.to_move), np.asarray(actions)
        game.step(actions[int(rng.integers(len(actions)))])


def log_softmax(x):
    x = x - x.max()
    return x - np.log(np.exp(x).sum())


def test_ensemble_plays_the_mean_of_the_members_log_probabilities(tmp_path):
    a, b, c = (small_policy(tmp_path, name, seed) for name, seed in (("a", 0), ("b", 1), ("c", 2)))
    ensemble = make_agent(f"ppo:{a},ensemble={b}+{c}")
    members = [make_agent(f"ppo:{p}") for p in (a, b, c)]
    config = RulesConfig(num_players=4)
    for agent in [ensemble, *members]:
        agent.reset(0, config, np.random.default_rng(0))
    differs = 0
    for view, legal in positions():
        expected = np.mean([log_softmax(m.logits(m.input_vector(view, legal), legal)[legal]) for m in members], axis=0)
        np.testing.assert_allclose(ensemble.legal_log_probs(view, legal), expected, rtol=1e-5, atol=1e-5)
        assert ensemble.act(view, list(legal)) == int(legal[np.argmax(expected)])
        differs += ensemble.act(view, list(legal)) != members[0].act(view, list(legal))
    assert differs > 0, "the members should not all agree with the first one on these random weights"


def test_ensemble_of_a_policy_with_itself_plays_as_the_policy(tmp_path):
    a = small_policy(tmp_path, "a", 0)
    config = RulesConfig(num_players=4)
    alone = run_match(config, [f"ppo:{a}", "greedy"], games=8, seed=5)
    doubled = run_match(config, [f"ppo:{a},ensemble={a}", "greedy"], games=8, seed=5)
    assert [g.scores for g in alone.games] == [g.scores for g in doubled.games]


def test_ensemble_member_for_another_player_count_is_refused(tmp_path):
    a = small_policy(tmp_path, "a", 0)
    with pytest.raises(CheckpointError, match="trained for 2 players.*every member needs the same number"):
        make_agent(f"ppo:{a},ensemble=checkpoints/ppo_2p.pt")


@pytest.mark.parametrize("option, message", [("ensemble=+", "checkpoint paths joined by '\\+'"),
                                             ("ensemble=missing.pt", "checkpoint not found: 'missing.pt'")])
def test_bad_ensemble_option_names_the_problem(tmp_path, option, message):
    a = small_policy(tmp_path, "a", 0)
    with pytest.raises(ValueError, match=message):
        make_agent(f"ppo:{a},{option}")


def test_ensemble_as_a_distillation_teacher_gives_its_distribution(tmp_path):
    """``action_values`` are the mean log-probabilities, so ``teacher_targets(..., temperature=1)``
    (what ``training.distill train --temperature 1`` imitates) is the ensemble's renormalised distribution."""
    from allfives_env.rules.actions import NUM_ACTIONS
    from training.distill_data import teacher_targets

    a, b = small_policy(tmp_path, "a", 0), small_policy(tmp_path, "b", 1)
    teacher = make_agent(f"ppo:{a},ensemble={b}")
    members = [make_agent(f"ppo:{p}") for p in (a, b)]
    for agent in [teacher, *members]:
        agent.reset(0, RulesConfig(num_players=4), np.random.default_rng(0))
    for view, legal in positions(count=10, seed=5):
        values = np.full((1, NUM_ACTIONS), np.nan, np.float32)
        values[0, legal] = teacher.action_values(view, list(legal))
        mask = np.zeros((1, NUM_ACTIONS), bool)
        mask[0, legal] = True
        target = teacher_targets(values, mask, 1.0)[0]
        product = np.exp(np.mean([log_softmax(m.logits(m.input_vector(view, legal), legal)[legal]) for m in members],
                                 axis=0))
        np.testing.assert_allclose(target[legal], product / product.sum(), rtol=1e-4, atol=1e-6)
        assert target[~mask[0]].sum() == 0
