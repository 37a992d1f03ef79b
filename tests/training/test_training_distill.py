"""``python -m training.distill``: who plays each seat, the labels, the fit, the commands end to end."""

import numpy as np
import pytest
import torch
from support import assert_refused_in_one_line

from allfives_env.agents.base import BaseAgent
from allfives_env.agents.ppo.agent import PPOAgent, build_policy, read_checkpoint
from allfives_env.agents.ppo.features import action_blocks
from allfives_env.arena.match import run_match
from allfives_env.rules.actions import DRAW, NUM_ACTIONS
from allfives_env.rules.config import RulesConfig
from training import value_fit
from training.distill import (
    DEFAULT_LINEUPS,
    PLAYER,
    _cosine,
    collect_labels,
    fit_student,
    label_game,
    load_labels,
    main,
    save_labels,
    seat_specs,
    student_spec,
)

POLICY_3P = "checkpoints/ppo_3p.pt"


def test_the_player_holds_each_side_in_turn_and_the_lineups_follow_the_deal_seed():
    three = RulesConfig(num_players=3)
    lineups = (("a", "b"), ("c", "d"))
    assert seat_specs(three, 0, lineups) == [PLAYER, "a", "b"]
    assert seat_specs(three, 1, lineups) == [PLAYER, "c", "d"]
    assert seat_specs(three, 2, lineups) == ["b", PLAYER, "a"]  # side 1 is the player's; then 2, then 0
    assert seat_specs(three, 5, lineups) == ["c", "d", PLAYER]
    assert seat_specs(three, 6, lineups) == [PLAYER, "a", "b"]
    assert seat_specs(three, 1, (("a",),)) == ["a", PLAYER, "a"]  # one agent for every other side
    four = RulesConfig(num_players=4)  # a partnership: both seats of a side play the same
    assert seat_specs(four, 0, (("a",), ("c",))) == [PLAYER, "a", PLAYER, "a"]
    assert seat_specs(four, 3, (("a",), ("c",))) == ["c", PLAYER, "c", PLAYER]
    assert seat_specs(three, 0) == [PLAYER, *DEFAULT_LINEUPS[0]]  # the default's first lineup is self-play
    assert seat_specs(four, 11) == ["greedy", PLAYER, "greedy", PLAYER]  # with one other side, each lineup's first
    with pytest.raises(ValueError, match="names 3 agents; with 3 sides give 2"):
        seat_specs(three, 0, (("a", "b", "c"),))


class ValueSpy(BaseAgent):
    """A teacher that values placement ``a`` at ``a`` points and records whose decisions it was asked about."""

    name = "spy"

    def __init__(self):
        super().__init__()
        self.asked = []

    def act(self, view, legal_actions):
        raise AssertionError("a teacher only values placements")

    def action_values(self, view, legal_actions):
        self.asked.append((view.seat, tuple(legal_actions)))
        return [float(a) for a in legal_actions]


def test_each_label_is_the_teachers_values_at_a_players_placement_with_a_choice():
    config, spy = RulesConfig(num_players=3), ValueSpy()
    inputs, masks, values = label_game(POLICY_3P, config, 4, teacher=spy, lineups=(("greedy", "heuristic"),))
    player_seat = seat_specs(config, 4, (("greedy", "heuristic"),)).index(PLAYER)
    assert len(inputs) == len(spy.asked) > 10
    assert {seat for seat, _ in spy.asked} == {player_seat}  # the other seats are never labelled
    for mask, value, (_, legal) in zip(masks, values, spy.asked):
        assert np.flatnonzero(mask).tolist() == list(legal) and len(legal) >= 2 and max(legal) < DRAW
        assert value[list(legal)].tolist() == [float(a) for a in legal]  # the teacher's values, where it said
        assert np.isnan(np.delete(value, list(legal))).all()
    assert inputs.shape == (len(spy.asked), PPOAgent(POLICY_3P).obs_dim) and inputs.dtype == np.float32
    self_play = label_game(POLICY_3P, config, 4, teacher=ValueSpy(), lineups=((PLAYER, PLAYER),))
    assert len(self_play[0]) > 2 * len(inputs)  # every seat is the player's


def test_labels_are_seeded_by_the_deal():
    config = RulesConfig(num_players=3)
    first = label_game(POLICY_3P, config, 9, teacher="search:samples=4")
    again = label_game(POLICY_3P, config, 9, teacher="search:samples=4")
    assert all(np.array_equal(a, b, equal_nan=True) for a, b in zip(first, again))
    assert np.isfinite(first[2][first[1].astype(bool)]).all()


def synthetic_labels(rows=3000, seed=0):
    """Labels whose teacher's values are the points each placement scores now (an input block): a rule a
    student with an action scorer can learn exactly."""
    rng = np.random.default_rng(seed)
    obs_dim, points = 989, action_blocks("lookahead", 3)[0]
    inputs = np.zeros((rows, obs_dim), np.float32)
    inputs[:, points:points + DRAW] = rng.normal(size=(rows, DRAW))
    masks = np.zeros((rows, NUM_ACTIONS), np.int8)
    for row in range(rows):
        masks[row, rng.choice(DRAW, size=rng.integers(2, 8), replace=False)] = 1
    values = np.where(masks.astype(bool), np.pad(inputs[:, points:points + DRAW], ((0, 0), (0, 2))) * 10, np.nan)
    meta = {"obs_dim": obs_dim, "net": {"activation": "relu", "skip": True}, "features": "lookahead",
            "rules": RulesConfig(num_players=3).to_dict(), "teacher": "points now"}
    labels = {"inputs": inputs, "masks": masks, "values": values.astype(np.float32),
              "deal_seed": np.arange(rows, dtype=np.int64) // 20}
    return labels, meta


def test_the_fit_learns_the_teachers_choice_and_keeps_the_least_regret_epoch():
    labels, meta = synthetic_labels()
    spec = student_spec(meta, [32], 16)
    lines = []
    before = torch.random.get_rng_state()
    net, report = fit_student(labels, spec, temperature=0.5, epochs=6, lr=1e-2, batch=64, seed=3, log=lines.append)
    assert torch.equal(torch.random.get_rng_state(), before)  # the global generator is left alone
    assert "agreement" in lines[0] and len(lines) == 7
    regrets = report["held_out_regret_by_epoch"]
    assert len(regrets) == 6 and report["epoch"] == 1 + int(np.argmin(regrets))
    assert report["held_out_regret"] == min(regrets) < 0.1 * report["held_out_regret_before"]
    assert report["held_out_agreement"] > 0.85
    assert report["held_out_labels"] == int((labels["deal_seed"] % 10 == 0).sum())
    again, _ = fit_student(labels, spec, temperature=0.5, epochs=6, lr=1e-2, batch=64, seed=3, log=lambda _: None)
    assert all(torch.equal(a, b) for a, b in zip(net.state_dict().values(), again.state_dict().values()))


def test_a_student_has_the_players_inputs_and_its_own_widths():
    meta = synthetic_labels(rows=10)[1]
    spec = student_spec(meta, [64, 64], 32)
    assert spec["obs_dim"] == 989 and spec["hidden_sizes"] == [64, 64] and spec["action_width"] == 32
    assert spec["action_inputs"] == action_blocks("lookahead", 3)
    assert "action_width" not in student_spec(meta, [64], 0)
    assert "action_depth" not in spec and student_spec(meta, [64], 32, action_depth=2)["action_depth"] == 2


def test_label_files_from_players_with_other_inputs_are_not_fit_together(tmp_path):
    labels, meta = synthetic_labels(rows=10)
    save_labels(tmp_path / "a.npz", labels, meta)
    save_labels(tmp_path / "b.npz", labels, dict(meta, features="none"))
    both, _ = load_labels([tmp_path / "a.npz", tmp_path / "a.npz"])
    assert len(both["inputs"]) == 20 and np.array_equal(both["deal_seed"][10:], labels["deal_seed"])
    with pytest.raises(ValueError, match="features differ"):
        load_labels([tmp_path / "a.npz", tmp_path / "b.npz"])
    (tmp_path / "c.npz").write_bytes(b"not a label file")
    with pytest.raises(ValueError, match="is not a label file"):
        load_labels([tmp_path / "c.npz"])


def test_the_commands_make_a_policy_that_plays_and_a_value_the_champion_reads(tmp_path, capsys):
    labels, policy, final = tmp_path / "labels.npz", tmp_path / "student.pt", tmp_path / "final.pt"
    assert main(["label", str(labels), "--player", POLICY_3P, "--games", "3", "--seed", "70",
                 "--teacher", "search:engine=compiled,samples=8", "--workers", "1"]) == 0
    assert main(["fit", str(policy), str(labels), "--epochs", "2", "--hidden-sizes", "32", "--action-width", "8",
                 "--threads", "1"]) == 0
    assert "kept epoch" in capsys.readouterr().out
    extra = read_checkpoint(str(policy))["extra"]
    assert extra["distilled_from"] == "search:engine=compiled,samples=8" and extra["labels"] > 30
    assert value_fit.main([str(policy), str(final), "--games", "4", "--head-only", "--workers", "1"]) == 0
    before, after = (read_checkpoint(str(p))["policy"]["state_dict"] for p in (policy, final))
    assert [k for k in before if not torch.equal(before[k], after[k])] == ["value_head.weight", "value_head.bias"]
    assert read_checkpoint(str(final))["extra"]["source_extra"]["labels"] == extra["labels"]
    result = run_match(RulesConfig(num_players=3), [f"ppo:{final}", f"champion:value={final}", "greedy"], games=3)
    assert len(result.games) == 3


def test_the_value_head_alone_is_the_least_squares_fit_and_the_policy_is_kept():
    data = value_fit.collect("checkpoints/champion_value_3p.pt", RulesConfig(num_players=3), games=12, seed=5)
    net = build_policy(read_checkpoint("checkpoints/champion_value_3p.pt")["policy"])
    policy_before = {k: v.clone() for k, v in net.state_dict().items() if not k.startswith("value_head")}
    train = data["game"] % 10 != 0

    def train_error():
        with torch.no_grad():
            values = net(torch.from_numpy(data["inputs"]))[1].numpy()
        return float(np.mean((values[train] - data["returns"][train]) ** 2))

    error_before = train_error()
    report = value_fit.fit_value_head(net, data, penalties=(1e-6,))
    assert train_error() < error_before  # the least-squares head fits the training games at least as well
    assert all(torch.equal(v, net.state_dict()[k]) for k, v in policy_before.items())
    assert report["same_action"] == 1.0 and report["ridge_penalty"] == 1e-6


def test_the_learning_rate_starts_at_lr_and_falls_on_a_half_cosine():
    schedule = _cosine(0.1, 4)
    rates = [schedule() for _ in range(4)]
    assert rates[0] == 0.1 and rates == sorted(rates, reverse=True) and rates[-1] > 0
    assert rates[2] == pytest.approx(0.05)


def test_a_diverging_fit_stops_with_one_line():
    labels, meta = synthetic_labels(rows=400)
    with pytest.raises(ValueError, match="diverged"):
        fit_student(labels, student_spec(meta, [8], 4), epochs=3, lr=1e30, batch=32, log=lambda _: None)


def damaged(tmp_path, name, change):
    labels, meta = synthetic_labels(rows=20)
    labels, meta = change(dict(labels), dict(meta))
    save_labels(tmp_path / name, labels, meta)
    return str(tmp_path / name)


@pytest.mark.parametrize("change,message", [
    (lambda labels, meta: (labels, {}), "its meta lacks"),
    (lambda labels, meta: (labels, dict(meta, rules={"num_players": 3, "divisor": 7})), "rules are not valid"),
    (lambda labels, meta: (dict(labels, inputs=labels["inputs"][:, :100]), meta), "inputs (20, 100)"),
    (lambda labels, meta: (dict(labels, values=labels["values"][:, :50]), meta), "values (20, 50)"),
])
def test_a_damaged_label_file_is_one_line_and_nothing_is_fit(tmp_path, capsys, change, message):
    path = damaged(tmp_path, "bad.npz", change)
    assert main(["fit", str(tmp_path / "p.pt"), path]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1 and not (tmp_path / "p.pt").exists()


def test_no_command_overwrites_its_own_input(tmp_path, capsys):
    player = tmp_path / "player.pt"
    player.write_bytes(open(POLICY_3P, "rb").read())
    assert main(["label", str(player), "--player", str(player), "--games", "1"]) == 2
    labels = damaged(tmp_path, "l.npz", lambda labels, meta: (labels, meta))
    before = open(labels, "rb").read()
    assert main(["fit", labels, labels, "--epochs", "1"]) == 2
    assert "is the input file" in capsys.readouterr().err
    assert open(labels, "rb").read() == before and player.read_bytes() == open(POLICY_3P, "rb").read()


@pytest.mark.parametrize("args,message", [
    (["label", "/no/such/folder/l.npz", "--player", POLICY_3P], "does not exist"),
    (["label", "{tmp}/l.npz", "--player", "missing.pt"], "not found"),
    (["label", "{tmp}/l.npz", "--player", POLICY_3P, "--teacher", "greedy"], "cannot value placements"),
    (["label", "{tmp}/l.npz", "--player", POLICY_3P, "--lineup", "nobody,greedy"], "nobody"),
    (["label", "{tmp}/l.npz", "--player", POLICY_3P, "--seed", "-3"], "--seed must be at least 0"),
    (["fit", "{tmp}/p.pt", "{tmp}/missing.npz"], "label file not found"),
    (["fit", "{tmp}/p.pt", "{tmp}/missing.npz", "--temperature", "-1"], "--temperature must be 0"),
    (["fit", POLICY_3P.replace("ppo_3p.pt", ""), "{tmp}/missing.npz"], "folder"),
    (["label", "{tmp}/l.npz", "--player", POLICY_3P, "--lineup", "greedy,greedy,greedy"], "names 3 agents"),
    (["label", "{tmp}/l.npz", "--player", POLICY_3P, "--lineup", "ppo:checkpoints/ppo_4p.pt"], "4 players"),
    (["fit", "{tmp}/p.pt", "{tmp}/missing.npz", "--temperature", "1e-320"], "0.01 to 1000 points"),
    (["fit", "{tmp}/p.pt", "{tmp}/missing.npz", "--temperature", "inf"], "0.01 to 1000 points"),
    (["fit", "{tmp}/p.pt", "{tmp}/missing.npz", "--lr", "inf"], "--lr must be above 0"),
    (["fit", "{tmp}/p.pt", "{tmp}/missing.npz", "--lr", "-1"], "--lr must be above 0"),
])
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, message):
    assert_refused_in_one_line(main, args, tmp_path, capsys, message)


def test_bad_counts_and_widths_are_one_line_from_the_parser(capsys):
    for args, message in ((["label", "l.npz", "--player", POLICY_3P, "--games", "0"], "--games must be a positive"),
                          (["fit", "p.pt", "l.npz", "--hidden-sizes", "8,x"], "--hidden-sizes must be positive"),
                          (["fit", "p.pt", "l.npz", "--hidden-sizes", "0"], "--hidden-sizes must be positive"),
                          (["label", "l.npz", "--player", POLICY_3P, "--lineup", ""], "--lineup must list agent")):
        with pytest.raises(SystemExit) as exit_info:
            main(args)
        err = capsys.readouterr().err
        assert exit_info.value.code == 2 and message in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("args, message", [
    (["fit", "{tmp}/p.pt", "{tmp}/l.npz", "--threads", "100000"], "--threads must be a positive integer up to 256"),
    (["label", "{tmp}/l.npz", "--player", "{tmp}/none.pt", "--workers", "100000"],
     "--workers must be a positive integer up to 256"),
    (["fit", "{tmp}/p.pt", "{tmp}/l.npz", "--hidden-sizes", "100000000"], "positive integers up to 16,384"),
])
def test_thread_worker_and_width_counts_have_an_upper_end(tmp_path, capsys, args, message):
    """100000 torch threads was a segmentation fault; a width of 100000000 failed allocating. (The files named
    do not exist: without the parser's refusal the command ends before it starts any thread.)"""
    with pytest.raises(SystemExit) as exit_info:
        main([a.replace("{tmp}", str(tmp_path)) for a in args])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())


def test_a_scorer_width_beyond_the_cap_is_refused(tmp_path, capsys):
    assert_refused_in_one_line(main, ["fit", "{tmp}/p.pt", "{tmp}/l.npz", "--action-width", "100000000"], tmp_path,
                               capsys, "--action-width from 0 to 16,384")


def test_a_scorer_depth_without_a_scorer_is_refused():
    with pytest.raises(ValueError, match="needs an action scorer"):
        student_spec(synthetic_labels(rows=10)[1], [8], 0, action_depth=2)


def test_labels_without_held_out_games_are_refused():
    labels, meta = synthetic_labels(rows=40)
    labels["deal_seed"][:] = 7
    with pytest.raises(ValueError, match="held out"):
        fit_student(labels, student_spec(meta, [8], 0), epochs=1, log=lambda _: None)


def test_labels_played_by_two_processes_are_the_labels_of_one():
    config = RulesConfig(num_players=3)
    one, two = (collect_labels(POLICY_3P, config, 3, 40, teacher="search:samples=4", workers=workers)
                for workers in (1, 2))
    assert all(np.array_equal(one[k], two[k], equal_nan=True) for k in one)
    assert set(one["deal_seed"].tolist()) == {40, 41, 42}


def test_soft_targets_are_the_softmax_of_values_over_the_temperature():
    """Labels are softmax(values / temperature) over the legal actions; temperature 0 is the argmax."""
    import math

    from training.distill import soft_targets

    values = torch.tensor([[0.0, 2.0, -1e9]])
    masks = torch.tensor([[True, True, False]])
    got = soft_targets(values, masks, 2.0)
    e = math.e
    assert got[0].tolist() == pytest.approx([1 / (1 + e), e / (1 + e), 0.0])
    assert soft_targets(values, masks, 0.0)[0].tolist() == [0.0, 1.0, 0.0]


def _labels(rows=10, obs_dim=989, players=3):
    rng = np.random.default_rng(0)
    masks = np.zeros((rows, NUM_ACTIONS), np.int8)
    masks[:, :3] = 1
    values = np.where(masks.astype(bool), rng.normal(size=(rows, NUM_ACTIONS)), np.nan).astype(np.float32)
    labels = {"inputs": rng.normal(size=(rows, obs_dim)).astype(np.float32), "masks": masks, "values": values,
              "deal_seed": np.arange(rows, dtype=np.int64)}
    meta = {"obs_dim": obs_dim, "net": {"activation": "relu", "skip": True}, "features": "lookahead",
            "rules": RulesConfig(num_players=players).to_dict(), "teacher": "points now"}
    return labels, meta


def test_label_files_of_other_rules_are_not_fit_together(tmp_path):
    """Labels made under other rules (here V5's divisor 3 instead of 5, the same input width) value the
    placements differently: load_labels refuses to mix them, naming the rules.
    Catches (distill.py load_labels: ``"rules"`` dropped from the compared keys)."""
    labels, meta = _labels()
    save_labels(tmp_path / "fives.npz", labels, meta)
    save_labels(tmp_path / "threes.npz", labels, dict(meta, rules=RulesConfig(num_players=3, divisor=3).to_dict()))
    both, _ = load_labels([tmp_path / "fives.npz", tmp_path / "fives.npz"])
    assert len(both["inputs"]) == 20
    with pytest.raises(ValueError, match="its player's rules differ from"):
        load_labels([tmp_path / "fives.npz", tmp_path / "threes.npz"])
