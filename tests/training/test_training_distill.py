"""``python -m training.distill``: the ensemble's probabilities, the recorded games, the fit, the command."""

import numpy as np
import pytest

from allfives_env.agents.ppo.agent import PPOAgent, build_policy, read_checkpoint
from allfives_env.arena.match import run_match
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view
from training.distill import ENSEMBLE, LINEUPS, collect, ensemble_log_probs, fit, main, record_game, seat_specs

LOOKAHEAD_3P = "checkpoints/ppo_3p_lookahead.pt"  # the two 3-player lineages the shipped file learned from
REPLY_CONTROL_3P = "checkpoints/champion_value_3p.pt"
THREE = RulesConfig(num_players=3)


def _a_placement_view(seed=3):
    """The first view with several placements in a 3-player game of random moves."""
    game, rng = Game(THREE), np.random.default_rng(seed)
    game.deal(rng)
    while True:
        legal = game.legal_actions()
        if len(legal) > 2 and legal[-1] < 112:
            return player_view(game, game.to_move)
        game.step(int(rng.choice(legal)))


def _log_softmax(z):
    z = z - z.max()
    return z - np.log(np.exp(z).sum())


def test_the_ensemble_is_the_normalised_mean_of_its_members_log_probabilities():
    view = _a_placement_view()
    legal = np.asarray(view.legal_actions)
    members = [PPOAgent(LOOKAHEAD_3P), PPOAgent(REPLY_CONTROL_3P)]
    for member in members:
        member.reset(view.seat, THREE, None)
    own = [_log_softmax(m.policy.logits(m.input_vector(view, legal), legal)[legal].astype(np.float64))
           for m in members]
    assert ensemble_log_probs(members[:1], view, legal) == pytest.approx(own[0])  # one member: itself
    assert ensemble_log_probs(members[:1] * 2, view, legal) == pytest.approx(own[0])
    mean = ensemble_log_probs(members, view, legal)
    assert np.exp(mean).sum() == pytest.approx(1.0)
    assert mean - mean.max() == pytest.approx((own[0] + own[1]) / 2 - ((own[0] + own[1]) / 2).max())


def test_the_ensemble_seat_rotates_and_the_others_follow_the_lineups():
    assert all(seat_specs(THREE, seed).count(ENSEMBLE) >= 1 for seed in range(3 * len(LINEUPS)))
    assert [seat_specs(THREE, 1 + len(LINEUPS) * k).index(ENSEMBLE) for k in range(3)] == [0, 1, 2]
    assert seat_specs(THREE, 0) == [ENSEMBLE] * 3  # the first lineup is self-play
    assert seat_specs(THREE, 3) == [ENSEMBLE, "search:engine=compiled", "search:engine=compiled"]
    assert seat_specs(THREE, 4 + len(LINEUPS)) == ["heuristic", ENSEMBLE, "greedy"]  # the seat after it first
    assert seat_specs(RulesConfig(num_players=4), 1) == [ENSEMBLE, "greedy", "greedy", "greedy"]


def test_a_recorded_game_holds_the_students_inputs_and_the_ensembles_probabilities():
    teachers, student = [PPOAgent(LOOKAHEAD_3P), PPOAgent(REPLY_CONTROL_3P)], PPOAgent(LOOKAHEAD_3P)
    inputs, masks, targets = record_game(teachers, student, THREE, 1)
    assert len(inputs) == len(masks) == len(targets) > 30
    assert inputs.shape[1] == student.obs_dim and inputs.dtype == np.float32
    assert (masks.sum(1) >= 2).all() and (masks[:, 112:] == 0).all()  # placements with a choice only
    assert targets.sum(1) == pytest.approx(np.ones(len(targets)), abs=1e-5)
    assert (targets[masks == 0] == 0).all()
    again = record_game(teachers, student, THREE, 1)
    assert all(np.array_equal(a, b) for a, b in zip((inputs, masks, targets), again))  # seeded


@pytest.fixture(scope="module")
def small_data():
    return collect([LOOKAHEAD_3P, REPLY_CONTROL_3P], LOOKAHEAD_3P, THREE, games=20, seed=123, workers=1)


def test_the_fit_moves_the_student_toward_the_ensemble_and_keeps_its_value(small_data):
    import torch

    net = build_policy(read_checkpoint(LOOKAHEAD_3P)["policy"])
    x = torch.from_numpy(small_data["inputs"])
    with torch.no_grad():
        _, values0 = net(x)
    report = fit(net, small_data, epochs=4, lr=5e-4, log=lambda line: None)
    assert report["agree_train"] > report["agree_train_before"] + 0.03
    assert report["cross_entropy_held_out"] < report["cross_entropy_held_out_before"]
    with torch.no_grad():
        _, values = net(x)
    assert float((values - values0).abs().mean()) < 0.05


def test_the_command_writes_a_policy_file(tmp_path, capsys):
    out = tmp_path / "student.pt"
    assert main([LOOKAHEAD_3P, REPLY_CONTROL_3P, "--out", str(out), "--games", "6", "--epochs", "1",
                 "--workers", "1"]) == 0
    assert "wrote" in capsys.readouterr().out
    extra = read_checkpoint(str(out))["extra"]
    assert extra["distilled_from"] == ["ppo_3p_lookahead.pt", "champion_value_3p.pt"] and extra["games"] == 6
    assert PPOAgent(str(out)).features == "lookahead"  # the first teacher's inputs
    result = run_match(THREE, ["ppo:" + str(out), "greedy", "greedy"], games=3)
    assert len(result.games) == 3


@pytest.mark.parametrize("args,message", [
    ([LOOKAHEAD_3P, "--out", "{tmp}/s.pt"], "at least 2 teacher files"),
    ([LOOKAHEAD_3P, REPLY_CONTROL_3P, "--out", REPLY_CONTROL_3P], "is the input file"),
    ([LOOKAHEAD_3P, REPLY_CONTROL_3P, "--out", "/no/such/folder/s.pt"], "does not exist"),
    (["missing.pt", REPLY_CONTROL_3P, "--out", "{tmp}/s.pt"], "not found"),
    (["checkpoints/ppo_2p.pt", REPLY_CONTROL_3P, "--out", "{tmp}/s.pt"], "one player count"),
    ([LOOKAHEAD_3P, REPLY_CONTROL_3P, "--out", "{tmp}/s.pt", "--lr", "0"], "--lr must be positive"),
    ([LOOKAHEAD_3P, REPLY_CONTROL_3P, "--out", "{tmp}/s.pt", "--seed", "-1"], "--seed must be at least 0"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert main(args) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_the_shipped_3_player_file_plays_the_two_lineages_ensemble_more_often_than_either():
    """``ppo_3p.pt`` was distilled from the two 3-player lineages: on fresh games it picks their
    ensemble's move more often than the lineage it started from."""
    from allfives_env.agents.ppo.agent import _load

    shipped = read_checkpoint("checkpoints/ppo_3p.pt")["extra"]
    assert shipped["distilled_from"] == ["ppo_3p_lookahead.pt", "champion_value_3p.pt"]
    data = collect([LOOKAHEAD_3P, REPLY_CONTROL_3P], LOOKAHEAD_3P, THREE, games=12, seed=900, workers=1)
    best = data["targets"].argmax(1)

    def agreement(path):
        policy = _load(path)[2]
        return np.mean(np.where(data["masks"] == 1, policy.batch_logits(data["inputs"], data["masks"]),
                                -np.inf).argmax(1) == best)

    assert agreement("checkpoints/ppo_3p.pt") > agreement(LOOKAHEAD_3P) + 0.04
