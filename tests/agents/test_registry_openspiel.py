"""The ``openspiel:BOT`` agent spec: parsing, clear errors, a missing extra, and an OpenSpiel bot that
decides from the seat's view only."""

import sys

import numpy as np
import pytest
from information import decision_points, decisions_over_worlds

from allfives_env.agents import make_agent, parse_spec, registered_agents
from allfives_env.agents.registry import allowed_specs_text
from allfives_env.arena import run_match
from allfives_env.rules import RulesConfig


def test_the_spec_names_a_bot_not_a_path():
    assert parse_spec("openspiel:ismcts,simulations=50,uct_c=1.5") == (
        "openspiel", "ismcts", {"simulations": 50, "uct_c": 1.5})
    assert "openspiel:BOT" in allowed_specs_text() and "ppo:PATH" in allowed_specs_text()
    with pytest.raises(ValueError, match=r"agent spec 'openspiel' needs a bot name: openspiel:BOT"):
        parse_spec("openspiel")


def test_bad_bot_names_and_options_fail_with_one_clear_line():
    pytest.importorskip("pyspiel")
    for bad, words in [("openspiel:alphazero", r"unknown OpenSpiel bot 'alphazero'; allowed: ismcts"),
                       ("openspiel:ismcts,depth=3",
                        r"agent 'openspiel' has no option 'depth'.*its options: simulations"),
                       ("openspiel:ismcts,simulations=0",
                        r"simulations=0 is not allowed; allowed: a positive whole number"),
                       ("openspiel:ismcts,reward=money", r"reward='money' is not allowed"),
                       ("openspiel:ismcts,uct_c=-1", r"uct_c=-1 is not allowed; allowed: a finite number of at "
                                                     r"least 0")]:  # was played, exploring less than none
        with pytest.raises(ValueError, match=words):
            make_agent(bad)
    agent = make_agent("openspiel:ismcts,simulations=7,rollouts=2")
    assert (agent.bot_name, agent.simulations, agent.rollouts) == ("ismcts", 7, 2)


def test_a_missing_openspiel_says_how_to_install_it(monkeypatch):
    """Without pyspiel the spec fails with the pip command, and the other agents still list."""
    monkeypatch.setitem(sys.modules, "pyspiel", None)  # makes `import pyspiel` fail
    monkeypatch.delitem(sys.modules, "allfives_env.integrations.openspiel", raising=False)
    words = r"agent 'openspiel' needs 'pyspiel', which is not installed; .*pip install -e \"\.\[openspiel\]\""
    with pytest.raises(ValueError, match=words):
        make_agent("openspiel:ismcts")
    assert "openspiel" not in registered_agents() and "greedy" in registered_agents()


@pytest.mark.parametrize("num_players", [2, 4])
def test_openspiel_decisions_do_not_depend_on_hidden_tiles(num_players):
    """Re-deal the hidden tiles keeping the seat's view: with the same seed the bot decides the same."""
    pytest.importorskip("pyspiel")
    resample = np.random.default_rng(5)
    for game in decision_points(num_players, seed=num_players, count=3):
        decisions = decisions_over_worlds("openspiel:ismcts,simulations=6", game, resample, agent_seed=77)
        assert len(decisions) == 1 and decisions <= set(game.legal_actions())


def test_openspiel_agent_plays_arena_games_reproducibly():
    """The arena plays it (an illegal choice would raise), and a seed replays the match."""
    pytest.importorskip("pyspiel")
    config = RulesConfig(num_players=2, target=60)
    specs = ["openspiel:ismcts,simulations=4", "greedy"]
    a = run_match(config, specs, games=2, seed=3)
    b = run_match(config, specs, games=2, seed=3)
    assert len(a.games) == 2 and [g.scores for g in a.games] == [g.scores for g in b.games]
