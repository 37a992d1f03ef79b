"""Agents plugged in through the entry point group ``allfives_env.agents``: the installed ``openspiel``
entry, a built-in or registered name winning over a plugin's, and a plugin that cannot be loaded failing
its own specs alone (the arena never loads plugins to play others)."""

from importlib.metadata import EntryPoint

import pytest

from allfives_env.agents import make_agent, parse_spec, registry
from allfives_env.agents.base import BaseAgent
from allfives_env.agents.greedy import GreedyAgent
from allfives_env.agents.random_agent import RandomAgent
from allfives_env.arena import run_match
from allfives_env.arena.game import AgentError
from allfives_env.rules import RulesConfig

RANDOM_PLUGIN = registry.AgentPlugin("allfives_env.agents.random_agent", "RandomAgent")
NOT_A_PLUGIN = "a string"


class Crashing(BaseAgent):
    def act(self, view, legal_actions):
        raise RuntimeError("my bug")


@pytest.fixture
def plugins(monkeypatch):
    """``install(name=value, ...)`` stands the given entry points in for the installed ones."""
    def install(**values):
        points = {name: EntryPoint(name, value, registry.AGENT_PLUGINS) for name, value in values.items()}
        monkeypatch.setattr(registry, "plugin_points", lambda: points)
        registry._loaded_plugin.cache_clear()

    monkeypatch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))
    yield install
    registry._loaded_plugin.cache_clear()


def test_the_installed_entry_point_adds_openspiel_from_the_integrations_layer():
    assert registry.plugin_points()["openspiel"].value == "allfives_env.integrations:OPENSPIEL_AGENT"
    plugin = registry._plugin("openspiel")
    assert (plugin.module, plugin.cls, plugin.argument, plugin.extra) == (
        "allfives_env.integrations.openspiel", "OpenSpielAgent", "BOT", "openspiel")


def test_a_plugin_adds_a_name_and_a_built_in_or_registered_name_wins(plugins):
    plugins(mine=f"{__name__}:RANDOM_PLUGIN", greedy=f"{__name__}:RANDOM_PLUGIN", ours=f"{__name__}:RANDOM_PLUGIN")
    registry.register_agent("ours", GreedyAgent)
    assert type(make_agent("mine")) is RandomAgent and parse_spec("mine") == ("mine", None, {})
    assert type(make_agent("greedy")) is GreedyAgent  # the built-in, not the plugin of that name
    assert type(make_agent("ours")) is GreedyAgent  # registered at run time
    assert "mine" in registry.allowed_specs_text()


def test_a_plugin_that_cannot_be_loaded_fails_its_own_specs_alone(plugins):
    """A broken plugin made every match fail (the arena loaded every plugin to tell shipped agents apart)
    and replaced a user agent's own error with the plugin's ModuleNotFoundError."""
    plugins(broken="no_such_package_xyz:PLUGIN", odd=f"{__name__}:NOT_A_PLUGIN")
    config = RulesConfig(num_players=2)
    assert len(run_match(config, ["greedy", "random"], games=2, seed=0).games) == 2
    with pytest.raises(AgentError, match="my bug"):
        run_match(config, [Crashing(), "random"], games=2, seed=0)
    with pytest.raises(ValueError, match=r"agent 'broken': its plugin \('no_such_package_xyz:PLUGIN'.*cannot be "
                                         r"loaded .*No module named 'no_such_package_xyz'.*reinstall or remove"):
        make_agent("broken")
    with pytest.raises(ValueError, match=r"agent 'odd': its plugin .* is a str, not an AgentPlugin"):
        make_agent("odd")
    assert "ppo:PATH, broken, odd, " in registry.allowed_specs_text()  # listed by name alone


def test_without_plugins_a_plugged_in_name_says_to_reinstall(plugins):
    """An install made before the entry points existed read openspiel:ismcts as a module named openspiel."""
    plugins()
    with pytest.raises(ValueError, match=r"no agent plugins are installed \(openspiel:BOT is one\): re-run "
                                         r"pip install -e \."):
        make_agent("openspiel:ismcts")
