"""Two counts of the training bookkeeping that only show with unusual settings.

* ``metrics.csv`` has a ``train_win_fixed`` column only when the run plays ``opp_fixed`` games
  (:func:`training.metrics.metric_columns`: the base columns, plus that one when ``opp_fixed > 0``).
* An evaluation of ``games`` games plays exactly ``games``: ``ceil(games / sides)`` duplicate deal
  sequences, each once per rotation of the sides, cut to ``games`` (:mod:`training.evaluate`) - also when
  ``games`` is not a multiple of the number of sides."""

import pytest

from allfives_env.rules import RulesConfig
from training.config import make_config
from training.evaluate import Evaluator
from training.metrics import BASE_COLUMNS, metric_columns


def test_the_fixed_opponent_column_is_there_only_with_fixed_games():
    plain = metric_columns(make_config({"eval_opponents": ["greedy"]}))
    assert "train_win_fixed" not in plain
    assert plain == BASE_COLUMNS + ["eval_greedy_win", "eval_greedy_lo", "eval_greedy_hi", "eval_greedy_margin"]
    fixed = metric_columns(make_config({"eval_opponents": ["greedy"], "opp_self": 0.5, "opp_fixed": 0.5,
                                        "fixed_opponent": "random"}))
    assert fixed == BASE_COLUMNS + ["train_win_fixed"] + plain[len(BASE_COLUMNS):]


@pytest.mark.parametrize("num_players, games", [(2, 7), (3, 10), (4, 5)])
def test_an_evaluation_plays_exactly_the_games_asked_for(num_players, games):
    import torch

    from allfives_env.agents.ppo.network import PolicyNet
    from allfives_env.env.encoders import default_layout

    torch.manual_seed(0)
    rules = RulesConfig(num_players=num_players)
    net = PolicyNet(default_layout(num_players).size, [8])
    result = Evaluator(rules, "none", ["random"], games=games, seed=3).evaluate(net)["random"]
    assert result["games"] == games
    assert 0.0 <= result["ci_low"] <= result["win_rate"] <= result["ci_high"] <= 1.0
