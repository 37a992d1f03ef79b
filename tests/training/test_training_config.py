"""The training config: typed fields, YAML files and key=value overrides; errors name the key."""

import glob

import pytest

from training.cli import main
from training.config import (
    ConfigError,
    TrainConfig,
    field_docs,
    load_config,
    make_config,
    parse_override,
)


def test_every_field_is_documented():
    docs = field_docs()
    assert set(docs) == set(TrainConfig.__dataclass_fields__)
    assert all(text.strip() for text in docs.values())


@pytest.mark.parametrize("path", sorted(glob.glob("configs/*.yaml")))
def test_shipped_configs_load(path):
    cfg = load_config(path)
    assert cfg.num_players in (2, 3, 4)


def test_overrides_are_typed():
    cfg = load_config("configs/smoke.yaml", ["learning_rate=1e-3", "hidden_sizes=[32, 16]", "target=null",
                                              "anneal_lr=false", "eval_opponents=[random]", "best_metric=random"])
    assert cfg.learning_rate == 1e-3 and cfg.hidden_sizes == [32, 16] and cfg.target is None
    assert cfg.anneal_lr is False and cfg.eval_opponents == ["random"]
    assert make_config({"learning_rate": 1}).learning_rate == 1.0  # an int is a fine float


@pytest.mark.parametrize("override, words", [
    ("num_player=3", ["num_player", "num_players"]),
    ("seed=abc", ["seed", "integer"]),
    ("learning_rate=fast", ["learning_rate", "number"]),
    ("anneal_lr=1", ["anneal_lr", "true or false"]),
    ("hidden_sizes=128", ["hidden_sizes", "list"]),
    ("hidden_sizes=[128, x]", ["hidden_sizes[1]", "integer"]),
    ("num_players=5", ["num_players", "2, 3 or 4"]),
    ("best_metric=search", ["best_metric"]),
    ("novalue", ["key=value"]),
])
def test_bad_values_name_the_key(override, words):
    with pytest.raises(ConfigError) as err:
        load_config(None, [override])
    for word in words:
        assert word in str(err.value)


def test_unknown_key_in_a_yaml_file(tmp_path):
    path = tmp_path / "bad.yaml"
    path.write_text("num_players: 2\nlearning_rat: 0.001\n")
    with pytest.raises(ConfigError, match="learning_rat.*learning_rate"):
        load_config(str(path))


def test_command_line_reports_config_errors(capsys):
    assert main(["--config", "configs/smoke.yaml", "bogus_key=1"]) == 2
    assert "bogus_key" in capsys.readouterr().err


def test_parse_override_reads_yaml_values():
    assert parse_override("x=[1, 2]") == ("x", [1, 2])
    assert parse_override("x=none") == ("x", "none")
    assert parse_override("x=null") == ("x", None)
