"""Expert iteration (training/distill.py): labels are what the teacher and student chose, and training moves the student."""

import numpy as np
import pytest

from allfives_env.agents import make_agent
from allfives_env.agents.ppo.agent import PPOAgent
from allfives_env.arena.match import play_game
from allfives_env.rules.actions import DRAW
from training import distill
from training.distill_data import load_shards, teacher_targets
from training.distill_train import agreement, train

STUDENT = "checkpoints/ppo_2p.pt"


@pytest.fixture(scope="module")
def shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("distill")
    totals = distill.collect(STUDENT, "search:samples=3", "greedy", games=4, out=str(out / "data"), seed=5,
                             beta=0.5, workers=1, engine="arena", log=lambda *_: None)
    return out, totals


@pytest.fixture(scope="module")
def vector_shards(tmp_path_factory):
    out = tmp_path_factory.mktemp("distill_vector")
    totals = distill.collect(STUDENT, "search:samples=3", "greedy", games=6, out=str(out / "data"), seed=5,
                             beta=0.5, workers=1, log=lambda *_: None)  # auto: the compiled engine
    return out, totals


@pytest.mark.parametrize("which", ["shards", "vector_shards"])
def test_collect_records_every_student_choice_with_the_teachers_values(which, request):
    out, totals = request.getfixturevalue(which)
    assert totals["games"] == (4 if which == "shards" else 6) and totals["decisions"] > 20
    d = np.load(next((out / "data").glob("shard_*.npz")))
    masks, values = d["masks"], d["values"]
    assert masks.sum(1).min() >= 2  # only decisions with a choice are labelled
    assert (~np.isnan(values) == masks).all()  # a value for every legal action, none elsewhere
    assert (masks[:, DRAW:] == 0).all()  # draws and passes are forced, never labelled
    rows = np.arange(len(masks))
    best = np.max(np.where(masks, values, -np.inf), axis=1)
    assert (values[rows, d["teacher_action"]] == best).all()  # the teacher's action has the best value
    # the student's recorded choice is what its network picks from the recorded input
    student = make_agent(f"ppo:{STUDENT}")
    for x, mask, action in zip(d["inputs"][:10], masks[:10], d["student_action"][:10]):
        legal = np.flatnonzero(mask)
        assert action == legal[np.argmax(student.logits(x)[legal])]


def test_collect_resumes_by_skipping_written_shards(shards):
    out, _ = shards
    again = distill.collect(STUDENT, "search:samples=3", "greedy", games=4, out=str(out / "data"), seed=5,
                            workers=1, engine="arena", log=lambda *_: None)
    assert again["shards"] == 0


def test_the_compiled_engine_refuses_what_it_cannot_play(tmp_path):
    with pytest.raises(ValueError, match="engine=compiled plays a search teacher"):
        distill.collect(STUDENT, "search:samples=3,depth=2", "greedy", games=2, out=str(tmp_path), engine="compiled")
    with pytest.raises(ValueError, match="engine=compiled"):
        distill.collect(STUDENT, "search:samples=3", "heuristic", games=2, out=str(tmp_path), engine="compiled")


@pytest.mark.parametrize("beta,played_field", [(1.0, 4), (0.0, 3)])
def test_labeling_agent_plays_the_teacher_with_probability_beta(beta, played_field):
    config = make_agent(f"ppo:{STUDENT}").rules
    labeler = distill.LabelingAgent(make_agent(f"ppo:{STUDENT}"), make_agent("search:samples=2"), beta, [])
    played = []
    play_game(config, [_Spy(labeler, played), make_agent("greedy")], deal_seed=[1, 2])
    assert len(played) == len(labeler.records) > 5
    assert [r[played_field] for r in labeler.records] == played


class _Spy:
    def __init__(self, inner, played):
        self.inner, self.played = inner, played

    def reset(self, seat, config, rng):
        self.inner.reset(seat, config, rng)

    def act(self, view, legal):
        action = self.inner.act(view, legal)
        self.played.append(action)
        return action


def test_teacher_targets_by_hand():
    values = np.array([[1.0, 3.0, np.nan, 2.0]], np.float32)
    masks = np.array([[True, True, False, True]])
    assert teacher_targets(values, masks, 0.0).tolist() == [[0.0, 1.0, 0.0, 0.0]]
    soft = teacher_targets(values, masks, 1.0)[0]
    e = np.exp([1.0 - 3.0, 0.0, 2.0 - 3.0])
    assert soft[2] == 0.0
    assert soft[[0, 1, 3]] == pytest.approx(e / e.sum(), rel=1e-6)


def test_training_moves_the_student_toward_the_teacher(shards, tmp_path):
    out, _ = shards
    d = load_shards([str(out / "data")])
    extra = train(STUDENT, [str(out / "data")], str(tmp_path / "p.pt"), epochs=30, lr=1e-3, batch_size=64,
                  log=lambda *_: None)
    assert extra["agreement_after"]["train"] > extra["agreement_before"]["train"] + 0.05
    agent = make_agent(f"ppo:{tmp_path / 'p.pt'}")
    assert isinstance(agent, PPOAgent)
    # the written file is the trained network: its agreement on the training rows is what train() reported
    from allfives_env.agents.ppo.agent import load_policy

    net, _, _ = load_policy(str(tmp_path / "p.pt"))
    rows = ~d["holdout"]
    assert agreement(net, d["inputs"][rows], d["masks"][rows], d["values"][rows]) == pytest.approx(
        extra["agreement_after"]["train"])


def test_one_label_file_logs_no_held_out_agreement(shards, tmp_path):
    """Whole files are held out, so one file leaves none: the log says n/a, never nan."""
    import shutil

    out, _ = shards
    first = sorted((out / "data").glob("shard_*"))[0]
    (tmp_path / "one").mkdir()
    shutil.copy(first, tmp_path / "one" / first.name)
    lines = []
    extra = train(STUDENT, [str(tmp_path / "one")], str(tmp_path / "p.pt"), epochs=1, log=lines.append)
    assert extra["agreement_after"]["held_out"] != extra["agreement_after"]["held_out"]  # NaN in the record
    text = "\n".join(lines)
    assert "no games are held out" in text and "held out n/a" in text and "nan" not in text


def test_train_without_data_is_a_clear_error(tmp_path):
    with pytest.raises(ValueError, match="no shard_"):
        train(STUDENT, [str(tmp_path)], str(tmp_path / "p.pt"))


# ---------------------------------------------------------------- the auxiliary loss inside PPO
def _smoke(run, *overrides):
    from training.ppo import main as train_main

    return train_main(["--config", "configs/smoke.yaml", "--run-dir", run, "eval_every=0", "tensorboard=false",
                       "checkpoint_minutes=0", "total_timesteps=4096", *overrides])


def test_ppo_with_distill_data_moves_the_policy_toward_the_teacher(shards, tmp_path):
    from allfives_env.agents.ppo.agent import load_policy

    out, _ = shards
    data = str(out / "data")
    d = load_shards([data])
    agree = {}
    for coef in (0.0, 5.0):
        run = str(tmp_path / f"run{coef}")
        assert _smoke(run, f"distill_data=[{data}]", f"distill_coef={coef}") == 0
        net, _, _ = load_policy(f"{run}/policy.pt")
        agree[coef] = agreement(net, d["inputs"], d["masks"], d["values"])
        header = open(f"{run}/metrics.csv").readline().strip().split(",")
        col = header.index("distill_ce")
        logged = [line.split(",")[col] for line in open(f"{run}/metrics.csv").read().splitlines()[1:]]
        assert all(v == "" for v in logged) if coef == 0 else all(float(v) > 0 for v in logged)
    assert agree[5.0] > agree[0.0] + 0.1


def test_distill_config_errors(shards, tmp_path, capsys):
    from training.config import ConfigError, load_config

    with pytest.raises(ConfigError, match="distill_coef"):
        load_config("configs/smoke.yaml", ["distill_coef=1.0"])  # no data to imitate
    out, _ = shards
    assert _smoke(str(tmp_path / "run"), f"distill_data=[{out / 'data'}]", "distill_coef=1.0", "features=reply") == 2
    assert "distill_data holds inputs of size 277; this run's policy reads 501" in capsys.readouterr().err
