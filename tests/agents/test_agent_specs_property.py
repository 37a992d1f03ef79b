"""Property test: agent spec strings, right and wrong, built from the registry's names and options.

Whatever the spec, :func:`make_agent` builds an agent or raises ``ValueError`` in one line, and so does
the agent's ``reset`` for 2, 3 or 4 players; a spec that names a missing agent, file or class, or an
option its agent does not have, is refused; an agent that resets plays a legal action (the cheap ones
are played: the search's budget options could make one decision take long)."""

import inspect

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from allfives_env.agents import make_agent
from allfives_env.agents.greedy import GreedyAgent
from allfives_env.agents.registry import registered_agents
from allfives_env.rules import Game, RulesConfig
from allfives_env.rules.view import player_view


def keyword_options(cls) -> list:
    return [p for p in inspect.signature(cls.__init__).parameters if p not in ("self", "path")]


_FACTORIES = {name: entry.factory for name, entry in registered_agents().items()}
#: Specs without options that build an agent: {spec: its agent's keyword options}.
BUILDS = {**{name: keyword_options(_FACTORIES[name]) for name in ("random", "greedy", "heuristic", "search",
                                                                   "champion")},
          "ppo:checkpoints/ppo_2p.pt": keyword_options(_FACTORIES["ppo"]),
          "ppo:checkpoints/ppo_4p.pt": keyword_options(_FACTORIES["ppo"]),
          "allfives_env.agents.greedy:GreedyAgent": keyword_options(GreedyAgent)}
#: Specs that name no agent: a missing name, file, folder, module or class, or an empty path.
REFUSED = ["ppo:no_such_file.pt", "ppo:", "ppo:checkpoints", "nosuchagent", "allfives_env.rules:Game",
           "no_such_module:Agent", ""]
VALUES = ["0", "1", "-1", "3", "0.5", "1e9", "1e400", "inf", "-inf", "nan", "none", "null", "true", "false",
          "", "abc", "2**70", "compiled", "python", "greedy", "heuristic", "policy", "partner", "off",
          "default", "checkpoints/ppo_2p.pt", "x=y", "[1, 2]"]
OTHER_KEYS = sorted({key for keys in BUILDS.values() for key in keys} | {"bogus", "", "Samples"})
#: Agents played after a reset: no search budget in their options.
PLAYED = ("random", "greedy", "heuristic", "ppo:", "allfives_env.agents.greedy:")


def options_joiner(name) -> str:
    """What comes between an agent and its options: ``ppo:PATH,key=value``, ``module:Class:key=value``,
    ``search:key=value``."""
    return "," if name.startswith("ppo:") else ":"


@st.composite
def specs(draw):
    """``(spec, refused)``: mostly the agent's own options with values right or wrong, sometimes other
    keys or the other separator; ``refused`` where the spec must be refused whatever the values."""
    name = draw(st.sampled_from(sorted(BUILDS) + REFUSED))
    own = BUILDS.get(name, [])
    keys = st.sampled_from(own) if own and draw(st.integers(0, 4)) else st.sampled_from(OTHER_KEYS)
    options = draw(st.lists(st.tuples(keys, st.one_of(st.none(), st.sampled_from(VALUES))), max_size=3))
    refused = name in REFUSED or any(key not in own for key, _ in options)
    if not options:
        return name, refused
    joiner = options_joiner(name) if draw(st.integers(0, 9)) else draw(st.sampled_from([":", ","]))
    text = ",".join(key if value is None else f"{key}={value}" for key, value in options)
    return name + joiner + text, refused


def one_line_value_error(call):
    """``(result, None)`` or ``(None, message)``; any other exception, or a message of several lines, fails."""
    try:
        return call(), None
    except ValueError as exc:
        message = str(exc)
        assert message.strip() and "\n" not in message, f"not one line: {message!r}"
        return None, message


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    spec_and_refused=specs(),
    num_players=st.sampled_from([2, 3, 4]),
    seed=st.integers(0, 2**32 - 1),
)
def test_any_spec_builds_an_agent_or_says_what_is_wrong_in_one_line(spec_and_refused, num_players, seed):
    spec, refused = spec_and_refused
    agent, error = one_line_value_error(lambda: make_agent(spec))
    assert not (refused and error is None), f"{spec!r} was accepted"
    if agent is None:
        return
    config = RulesConfig(num_players=num_players)
    rng = np.random.default_rng(seed)
    _, error = one_line_value_error(lambda: agent.reset(0, config, rng))
    if error is not None or not spec.startswith(PLAYED):
        return
    game = Game(config)
    game.start_game(rng)
    view = player_view(game, game.to_move)
    legal = list(game.legal_actions())
    if game.to_move != 0:  # reset for seat 0; a fresh agent for the seat to move
        agent = make_agent(spec)
        agent.reset(game.to_move, config, rng)
    assert agent.act(view, legal) in legal
