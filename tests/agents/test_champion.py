"""The `champion` spec: the compiled search with heuristic rollouts (tuned rollout players with 2 players)
and its own budget per player count."""

import numpy as np
import pytest
from support import random_states

from allfives_env.agents import make_agent
from allfives_env.agents.heuristic import HeuristicAgent
from allfives_env.agents.search import CHAMPION_ROLLOUT_WEIGHTS, CHAMPION_SAMPLES
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.view import player_view


def _decisions(players, count):
    """``count`` positions of random games with more than one legal placement, as (view, legal)."""
    found = []
    for game, _ in random_states(players, 1, seed=players):
        legal = game.legal_actions()
        if len(legal) >= 2 and legal[0] < 112:
            found.append((player_view(game, game.to_move), legal))
            if len(found) == count:
                break
    assert len(found) == count
    return found


def _reset(spec, config):
    agent = make_agent(spec)
    agent.reset(0, config, np.random.default_rng(4))
    return agent


@pytest.mark.parametrize("players", [2, 3, 4])
def test_champion_is_the_compiled_search_with_heuristic_rollouts(players):
    """With 3 and 4 players (and with ``rollout_weights=default``) the champion is exactly the compiled
    search with heuristic rollouts; with 2 its rollout players use the tuned weights, which change values."""
    config = RulesConfig(num_players=players)
    champion = _reset("champion:samples=6", config)
    old = _reset("champion:samples=6,rollout_weights=default", config)
    twin = _reset("search:engine=compiled,rollout=heuristic,samples=6", config)
    assert (champion.engine, champion.rollout) == ("compiled", "heuristic")
    tuned = CHAMPION_ROLLOUT_WEIGHTS.get(players)
    expected_weights = HeuristicAgent(**(tuned or {})).weight_array()
    assert champion._compiled.searcher.rollout_weights.tolist() == expected_weights.tolist()
    differ = 0
    for view, legal in _decisions(players, 12):
        values, searched = champion.action_values(view, legal), twin.action_values(view, legal)  # the same worlds
        assert old.action_values(view, legal) == searched
        if tuned is None:
            assert values == searched
        else:
            differ += values != searched
    assert tuned is None or differ >= 3
    default = make_agent("champion")
    default.reset(0, config, np.random.default_rng(0))
    assert default._samples == CHAMPION_SAMPLES[players]


def test_champion_options_and_the_rollout_option_of_search():
    with pytest.raises(ValueError, match="has no option 'engine'"):
        make_agent("champion:engine=python")
    with pytest.raises(ValueError, match="rollout_weights='best' is not allowed; allowed: 'tuned' \\(the default\\) or "
                                         "'default'"):
        make_agent("champion:rollout_weights=best")
    with pytest.raises(ValueError, match="rollout='policy' is not allowed; allowed: 'greedy' \\(the default\\) or 'heuristic'"):
        make_agent("search:rollout=policy")
    assert make_agent("search").rollout == "greedy"
