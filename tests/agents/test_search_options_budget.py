"""``search`` options (allfives_env.agents.search): combinations refused when built, and the time budget's floor.

The module docstring: ``infer=greedy`` runs on the compiled engine only; ``engine=compiled`` plays
whole-hand rollouts with a fixed budget, so ``depth`` and ``time_ms`` are options of ``engine=python``
only; ``time_ms`` stops sampling a move once the time has passed, *after at least* ``min_samples`` worlds."""

import numpy as np
import pytest

import allfives_env.agents.search as search_module
from allfives_env.agents import make_agent
from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.view import player_view


@pytest.mark.parametrize("spec, words", [
    ("search:engine=python,infer=greedy", "compiled engine only"),
    ("search:engine=compiled,time_ms=5", "depth and time_ms"),
    ("search:engine=compiled,depth=2", "depth and time_ms"),
    ("search:infer=greedy,time_ms=0", "depth and time_ms"),  # infer=greedy picks the compiled engine
])
def test_options_of_the_other_engine_are_refused_when_built(spec, words):
    with pytest.raises(ValueError, match=words):
        make_agent(spec)


def _decision_with_choices(seed=3):
    """A 2-player game at its first decision with more than one legal placement."""
    rng = np.random.default_rng(seed)
    game = Game(RulesConfig(num_players=2))
    while True:
        game.start_game(rng)
        if len(game.legal_actions()) > 1:
            return game, rng


@pytest.mark.parametrize("min_samples, worlds", [("1", 1), ("3", 3), (None, 4)])
def test_a_zero_time_budget_samples_exactly_min_samples_worlds(monkeypatch, min_samples, worlds):
    """``time_ms=0``: the deadline has passed as soon as sampling starts, so the search stops at the
    first check allowed, after exactly ``min_samples`` worlds (not one more). Also catches a default
    floor other than the documented 4."""
    calls = []
    real = search_module.sample_world

    def counting(view, rng):
        calls.append(1)
        return real(view, rng)

    monkeypatch.setattr(search_module, "sample_world", counting)
    game, rng = _decision_with_choices()
    option = "" if min_samples is None else f",min_samples={min_samples}"
    agent = make_agent(f"search:samples=50,time_ms=0{option}")
    agent.reset(game.to_move, game.config, rng)
    agent.action_values(player_view(game, game.to_move), game.legal_actions())
    assert len(calls) == worlds


@pytest.mark.parametrize("spec, words", [
    ("search:samples=10,time_ms=5,min_samples=10", "min_samples=10 is not below samples=10, so time_ms could never "
                                                   "stop the search early; allowed: min_samples from 1 to 9"),
    ("search:samples=1,time_ms=5,min_samples=3", "allowed: no min_samples (one world)"),
])
def test_min_samples_that_leaves_time_ms_nothing_to_stop_is_refused_when_built(spec, words):
    """Catches min_samples at or above samples accepted: time_ms then changed nothing."""
    with pytest.raises(ValueError) as refused:
        make_agent(spec)
    assert words in str(refused.value)


def test_min_samples_at_the_default_worlds_is_refused_before_a_game_in_one_line():
    """With samples by player count (24 with 2 players) the check waits for the player count."""
    from allfives_env.arena import run_match

    config = RulesConfig(num_players=2)
    with pytest.raises(ValueError) as refused:
        run_match(config, ["search:time_ms=5,min_samples=24", "greedy"], games=2, seed=0)
    assert "min_samples=24 is not below the 24 worlds of 2 players" in str(refused.value)
    assert "\n" not in str(refused.value)
    match = run_match(config, ["search:time_ms=5,min_samples=23", "greedy"], games=2, seed=0)
    assert len(match.games) == 2
