"""The `champion` spec: the compiled search with heuristic rollouts and its own budget per player count."""

import numpy as np
import pytest
from support import random_states

from allfives_env.agents import make_agent
from allfives_env.agents.search import CHAMPION_SAMPLES
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.view import player_view


@pytest.mark.parametrize("players", [2, 3, 4])
def test_champion_is_the_compiled_search_with_heuristic_rollouts(players):
    config = RulesConfig(num_players=players)
    champion, twin = make_agent("champion:samples=6"), make_agent("search:engine=compiled,rollout=heuristic,samples=6")
    champion.reset(0, config, np.random.default_rng(4))
    twin.reset(0, config, np.random.default_rng(4))
    assert (champion.engine, champion.rollout) == ("compiled", "heuristic")
    compared = 0
    for game, _ in random_states(players, 1, seed=players):
        legal = game.legal_actions()
        if len(legal) < 2 or legal[0] >= 112:
            continue
        view = player_view(game, game.to_move)
        assert champion.action_values(view, legal) == twin.action_values(view, legal)  # same worlds, same values
        compared += 1
        if compared == 12:
            break
    assert compared == 12
    default = make_agent("champion")
    default.reset(0, config, np.random.default_rng(0))
    assert default._samples == CHAMPION_SAMPLES[players]


def test_champion_options_and_the_rollout_option_of_search():
    with pytest.raises(ValueError, match="has no option 'engine'"):
        make_agent("champion:engine=python")
    with pytest.raises(ValueError, match="rollout='policy' is not allowed; allowed: 'greedy' \\(the default\\) or 'heuristic'"):
        make_agent("search:rollout=policy")
    assert make_agent("search").rollout == "greedy"
