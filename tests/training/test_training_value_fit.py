"""``python -m training.value_fit``: the champion's look-ahead return, the recorded games, the fit."""

import numpy as np
import pytest
from support import assert_refused_in_one_line

from allfives_env.agents.champion import GAMMA, LeafValues
from allfives_env.agents.ppo.agent import PPOAgent, build_policy, read_checkpoint
from allfives_env.arena.match import run_match
from allfives_env.rules.config import RulesConfig
from training.value_fit import collect, discounted_returns, explained_variance, fit, main, record_game, seat_specs

POLICY_3P = "checkpoints/champion_value_3p.pt"  # the champion's 3-player value file


def test_the_return_counts_zero_sum_points_per_step_and_the_outcome_at_the_end():
    # a seat decided at margins 0, 10 and 4, and the game ended at margin 20, lost
    returns = discounted_returns([0.0, 10.0, 4.0], 20.0, -1.0, gamma=0.9, points=0.02)
    last = 0.02 * 16 - 1.0
    middle = 0.02 * -6 + 0.9 * last
    first = 0.02 * 10 + 0.9 * middle
    assert returns == pytest.approx([first, middle, last])


def test_the_return_is_the_champions_look_ahead_target():
    # G_t = r_t + gamma G_{t+1}: what LeafValues adds up one move ahead (points / 50, discount GAMMA)
    margins = [3.0, 8.0, 8.0, 15.0]
    returns = discounted_returns(margins, 30.0, 1.0)
    for t in range(3):
        assert returns[t] == pytest.approx((margins[t + 1] - margins[t]) / 50 + GAMMA * returns[t + 1])
    assert returns[3] == pytest.approx(15 / 50 + 1.0)


def test_each_side_is_the_recorded_champion_in_turn():
    config = RulesConfig(num_players=4)
    assert seat_specs(config, 0)[0::2] == ["champion:value=none"] * 2
    assert seat_specs(config, 1)[1::2] == ["champion:value=none"] * 2
    assert seat_specs(config, 0)[1::2] == seat_specs(config, 1)[0::2] == ["search:engine=compiled"] * 2
    three = RulesConfig(num_players=3)
    assert [seat_specs(three, seed).index("champion:value=none") for seed in range(3)] == [0, 1, 2]


def test_a_recorded_game_has_the_policys_inputs_a_legal_mask_and_bounded_returns():
    encoder = PPOAgent(POLICY_3P)
    inputs, masks, returns = record_game(encoder, RulesConfig(num_players=3), 5)
    assert len(inputs) == len(masks) == len(returns) > 30
    assert inputs.shape[1] == encoder.obs_dim and inputs.dtype == np.float32
    assert (masks[:, :112].sum(1) >= 1).all() and (masks[:, 112:] == 0).all()  # placements only
    assert np.abs(returns).max() < 4
    again = record_game(encoder, RulesConfig(num_players=3), 5)
    assert all(np.array_equal(a, b) for a, b in zip((inputs, masks, returns), again))  # seeded


@pytest.fixture(scope="module")
def small_data():
    return collect(POLICY_3P, RulesConfig(num_players=3), games=20, seed=123, workers=1)


def test_the_fit_lowers_the_value_error_and_keeps_the_policy(small_data):
    net = build_policy(read_checkpoint(POLICY_3P)["policy"])
    report = fit(net, small_data, epochs=3, lr=3e-4, kl_weight=1.0)
    import torch

    with torch.no_grad():
        _, values = net(torch.from_numpy(small_data["inputs"]), torch.from_numpy(small_data["masks"]).bool())
    train = small_data["game"] % 10 != 0
    before = build_policy(read_checkpoint(POLICY_3P)["policy"])
    with torch.no_grad():
        _, values0 = before(torch.from_numpy(small_data["inputs"]))
    r = small_data["returns"][train]
    assert explained_variance(values.numpy()[train], r) > explained_variance(values0.numpy()[train], r) + 0.05
    assert report["same_action"] > 0.95


def test_the_command_writes_a_file_the_champion_reads(tmp_path, capsys):
    out = tmp_path / "value_3p.pt"
    assert main([POLICY_3P, str(out), "--games", "6", "--epochs", "1", "--workers", "1"]) == 0
    assert "wrote" in capsys.readouterr().out
    extra = read_checkpoint(str(out))["extra"]
    assert extra["value_fit_of"] == "champion_value_3p.pt" and extra["games"] == 6
    LeafValues(str(out))  # readable as champion:value=PATH
    result = run_match(RulesConfig(num_players=3), ["champion:value=" + str(out), "greedy", "greedy"], games=3)
    assert len(result.games) == 3


@pytest.mark.parametrize("args,message", [
    ([POLICY_3P, POLICY_3P], "is the input file"),
    ([POLICY_3P, "/no/such/folder/v.pt"], "does not exist"),
    (["missing.pt", "{tmp}/v.pt"], "not found"),
    ([POLICY_3P, "{tmp}/v.pt", "--lr", "0"], "--lr must be positive"),
    ([POLICY_3P, "{tmp}/v.pt", "--seed", "-1"], "--seed must be at least 0"),
    ([POLICY_3P, "{tmp}/v.pt", "--games", "1", "--head-only"], "--games must be at least 2"),
    ([POLICY_3P, "{tmp}/v.pt", "--lr", "inf"], "--lr must be positive and at most 1"),
    ([POLICY_3P, "{tmp}/v.pt", "--kl-weight", "nan"], "--kl-weight at least 0 and finite"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    assert_refused_in_one_line(main, args, tmp_path, capsys, message)


def test_a_bad_count_is_refused_by_the_parser_in_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([POLICY_3P, "/tmp/v.pt", "--games", "0"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "--games must be a positive integer" in err
    assert len(err.strip().splitlines()) == 1


def test_workers_have_an_upper_end(tmp_path, capsys):
    """--workers sets torch's threads too: 100000 was a segmentation fault. (The source does not exist: without the
    parser's refusal the command ends before it sets any thread.)"""
    with pytest.raises(SystemExit) as exit_info:
        main([str(tmp_path / "none.pt"), str(tmp_path / "v.pt"), "--workers", "100000"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and "--workers must be a positive integer up to 256" in err
    assert len(err.strip().splitlines()) == 1 and not list(tmp_path.iterdir())


def test_the_shipped_4_player_value_file_is_the_4_player_policy_before_with_its_value_refit():
    """``champion_value_4p.pt`` is the 4-player policy shipped before the search fine-tune (the file
    pinned as ``benchmark_v1/ppo_4p.pt``) with its value refit."""
    from allfives_env.agents.ppo.agent import load_numpy_policy

    before = "checkpoints/benchmark_v1/ppo_4p.pt"
    shipped = read_checkpoint("checkpoints/champion_value_4p.pt")
    assert shipped["extra"]["value_fit_of"] == "ppo_4p.pt" and shipped["policy"]["features"] == "lookahead_infer"
    data = collect(before, RulesConfig(num_players=4), games=2, seed=7, workers=1)
    x, legal = data["inputs"], data["masks"].astype(bool)
    (_, _, original), (_, _, refit) = load_numpy_policy(before), load_numpy_policy("checkpoints/champion_value_4p.pt")
    moves = [np.where(legal, p.batch_logits(x, data["masks"]), -np.inf).argmax(1) for p in (original, refit)]
    assert np.mean(moves[0] == moves[1]) > 0.9  # the replies the look-ahead plays are the policy's
    assert not np.allclose(original.values(x), refit.values(x), atol=0.05)  # but the value is new


def test_each_seat_returns_end_with_its_own_sides_outcome(monkeypatch):
    """The last return of each seat takes its side's outcome: the winning side's is +1 (and it has the best
    margin), the others' -1."""
    from pathlib import Path

    import training.value_fit as value_fit

    calls = []
    real = value_fit.discounted_returns

    def spy(margins, end_margin, outcome, *args, **kwargs):
        calls.append((end_margin, outcome))
        return real(margins, end_margin, outcome, *args, **kwargs)

    monkeypatch.setattr(value_fit, "discounted_returns", spy)
    policy = str(Path(value_fit.__file__).resolve().parents[1] / "checkpoints/ppo_3p.pt")
    value_fit.record_game(PPOAgent(policy), RulesConfig(num_players=3), 5)
    assert len(calls) == 3
    outcomes = sorted(o for _, o in calls)
    assert outcomes == [-1.0, -1.0, 1.0]
    winner = max(calls, key=lambda c: c[1])
    assert winner[0] == max(m for m, _ in calls)


CHAMPION, OTHERS = "champion:value=none", "search:engine=compiled"


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(6))
def test_every_seed_records_exactly_one_side(players, seed):
    """Side ``seed % sides`` is recorded: with 4 players a partnership (R2: seats 0+2 or 1+3), so seeds 2 and 3
    record sides 0 and 1 again, never nobody. Catches (value_fit.py seat_specs:
    ``deal_seed % config.num_sides`` -> ``% config.num_players``)."""
    config = RulesConfig(num_players=players)
    specs = seat_specs(config, seed)
    side = seed % config.num_sides
    assert specs == [CHAMPION if config.side_of(s) == side else OTHERS for s in range(players)]
    assert specs.count(CHAMPION) == (2 if players == 4 else 1)
