"""Greedy's choices on hand-checked positions, and the spec parser."""

import numpy as np
import pytest
from support import deal_with

import allfives_env
from allfives_env.agents import GreedyAgent, HeuristicAgent, RandomAgent, SearchAgent, make_agent, parse_spec
from allfives_env.agents.greedy import greedy_action, greedy_from_observations
from allfives_env.agents.registry import register_agent
from allfives_env.env.encoders import default_layout
from allfives_env.rules import Game, RulesConfig, parse_action
from allfives_env.rules.view import player_view


def _greedy_choice(game):
    agent = GreedyAgent()
    agent.reset(game.to_move, game.config, np.random.default_rng(0))
    view = player_view(game, game.to_move)
    return agent.act(view, view.legal_actions)


def _start(first_hands, leader=0, num_players=2):
    hands, boneyard = deal_with(num_players, first_hands)
    game = Game(RulesConfig(num_players=num_players))
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=boneyard, leader=leader)
    return game


def test_greedy_leads_the_best_scoring_tile():
    # [5|5] alone counts 10 (R14) and beats [1|4] (5) and [6|6] (12 scores nothing).
    game = _start([["1|4", "5|5", "6|6", "0|0", "2|2", "1|1", "3|3", "2|3", "0|1"]])
    assert _greedy_choice(game) == parse_action("5|5@W")


def test_greedy_ties_go_to_the_heavier_tile():
    # [0|5], [1|4], [2|3] all lead for 5; all have 5 pips, none is a double:
    # the higher half decides, so [0|5].
    game = _start([["0|5", "1|4", "2|3", "0|0", "0|1", "1|1", "0|2", "1|2", "2|2"]])
    assert _greedy_choice(game) == parse_action("0|5@W")


def test_greedy_reply_takes_the_spinner_fifteen():
    # Lead [3|6] (count 9); seat 1: [6|6] on the 6 counts 3 + 12 = 15 (R16),
    # [3|4] on the 3 counts 4 + 6 = 10, [2|3] counts 2 + 6 = 8 (nothing).
    game = _start([["3|6", "0|0", "0|1", "0|2", "1|1", "1|2", "2|2", "0|3", "1|3"],
                   ["6|6", "3|4", "2|3", "4|4", "4|5", "5|5", "0|4", "1|4", "2|4"]])
    game.step(parse_action("3|6@W"))
    assert _greedy_choice(game) == parse_action("6|6@E")


def test_greedy_ties_between_slots_go_to_the_lower_slot():
    # Lead [2|2]: W and E both show 2 (C4). Seat 1's [2|3] on either side counts
    # 2*2 + 3 = 7 (nothing), [2|6] counts 4 + 6 = 10; [2|6] at W (slot 0) wins the tie with E.
    game = _start([["2|2", "0|0", "0|1", "0|2", "1|1", "1|2", "0|3", "1|3", "0|4"],
                   ["2|3", "2|6", "3|3", "3|4", "4|4", "5|5", "5|6", "6|6", "4|5"]])
    game.step(parse_action("2|2@W"))
    assert game.count_after(*divmod(parse_action("2|6@W"), 4)) == 10
    assert _greedy_choice(game) == parse_action("2|6@W")


def test_spec_parser():
    assert parse_spec("greedy") == ("greedy", None, {})
    assert parse_spec("search:samples=32,depth=4") == ("search", None, {"samples": 32, "depth": 4})
    agent = make_agent("search:samples=3,time_ms=5.5")
    assert isinstance(agent, SearchAgent) and agent.samples == 3 and agent.time_ms == 5.5
    assert isinstance(make_agent("allfives_env.agents.random_agent:RandomAgent"), RandomAgent)
    assert isinstance(make_agent("heuristic:reply_weight=0"), HeuristicAgent)
    for bad, words in [("nosuch", "unknown agent spec"), ("greedy:oops", "key=value"),
                       ("search:samples=32,samples=4", "option 'samples' is given twice in agent spec"),
                       ("search:nosuch=1", "agent .search. has no option .nosuch..*its options: samples, depth"), ("nosuchmodule:Cls", "cannot import"),
                       ("ppo:/no/such/file.pt", "checkpoint not found"),
                       ("ppo:checkpoints/ppo_2p.pt:infer=off", "options follow a ',', not a ':'"),  # was "needs a path"
                       (" greedy", "has spaces around it; write 'greedy'"),  # was a second greedy in the tables
                       ("greedy:", "ends with ':'; write 'greedy'"),
                       ("ppo:checkpoints", r"'checkpoints' is a folder, not a checkpoint \(in agent spec 'ppo:checkpoints'\)"),
                       ("search:samples=-3", r"samples=-3 is not allowed; allowed: a whole number from 1 to 100,000 "
                                             r"\(in agent spec 'search:samples=-3'\)")]:
        with pytest.raises(ValueError, match=words):
            make_agent(bad)


@pytest.mark.parametrize("spec, allowed", [
    ("search:time_ms=abc", "a finite number of at least 0"),  # was a TypeError in the middle of a game
    ("search:time_ms=-1", "a finite number of at least 0"),
    ("search:samples=True", "a whole number from 1 to 100,000"),  # was one world a move
    ("search:samples=99999999999", "a whole number from 1 to 100,000"),  # was a match that never ended
    ("search:depth=-3", "a whole number of at least 0"),
    ("search:depth=2.7", "a whole number of at least 0"),  # was cut to 2
    ("search:min_samples=abc", "a whole number from 1 to 100,000"),
    ("search:min_samples=5", "min_samples with time_ms (engine=python), or no min_samples"),  # was ignored
    ("search:engine=compiled,min_samples=5", "min_samples with time_ms (engine=python), or no min_samples"),
    ("search:prior_weight=nan", "a finite number of at least 0"),  # was every game lost
    ("search:win_value=inf", "a finite number of at least 0"),
    ("champion:value_weight=nan", "a finite number of at least 0"),
    ("champion:worlds=0", "a whole number from 1 to 100,000"),
    ("champion:value=true", "a policy file, default or none (the search alone)"),  # was the file 'True' not found
    ("champion:value=3", "a policy file, default or none (the search alone)"),
    ("heuristic:reply_weight=none", "a finite number"),  # was a TypeError in the first game
    ("heuristic:stuck_penalty=abc", "a finite number"),
    ("heuristic:double_bonus=nan", "a finite number"),  # was played, every comparison false
])
def test_search_options_are_checked_when_the_agent_is_built(spec, allowed):
    with pytest.raises(ValueError) as err:
        make_agent(spec)
    assert f"allowed: {allowed} (in agent spec '{spec}')" in str(err.value)


def test_depth_and_time_of_zero_still_play():
    """depth=0 scores the move alone, time_ms=0 stops at min_samples worlds: both were accepted before."""
    assert make_agent("search:depth=0").depth == 0 and make_agent("search:time_ms=0").time_ms == 0.0


@pytest.mark.parametrize("samples", ["0", "-3", "True", "2.5", "100001"])
def test_the_batched_search_checks_samples_as_the_search_does(samples):
    from allfives_env.agents.batched import check_batched_spec

    with pytest.raises(ValueError, match="samples=.* is not allowed; allowed: a whole number from 1 to 100,000"):
        check_batched_spec(f"search:engine=compiled,samples={samples}")


def test_registry_hook_for_path_agents(tmp_path):
    path = tmp_path / "policy.pt"
    path.write_text("x")
    register_agent("test_pathagent", lambda p, **kw: GreedyAgent(), takes_path=True)
    assert isinstance(make_agent(f"test_pathagent:{path}"), GreedyAgent)
    with pytest.raises(ValueError, match="checkpoint not found"):
        make_agent(f"test_pathagent:{tmp_path / 'missing.pt'}")


def test_a_shipped_file_is_found_from_any_directory_of_the_checkout(tmp_path, monkeypatch):
    """A relative path not found from the working directory is read among the shipped files (in the package):
    by the spec, the agent class and the batched twin alike."""
    from allfives_env.agents.batched import make_batched_agent
    from allfives_env.agents.ppo.agent import PPOAgent
    from allfives_env.agents.registry import resolve_policy_path
    from allfives_env.vector import VectorAllFives

    monkeypatch.chdir(tmp_path)
    shipped = "checkpoints/ppo_2p.pt"
    assert make_agent(f"ppo:{shipped}").num_players == 2
    assert PPOAgent(shipped).path.endswith(shipped) and PPOAgent(shipped).path != shipped
    assert make_batched_agent(f"ppo:{shipped}", VectorAllFives(2)).name == f"ppo:{shipped}"
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "ppo_2p.pt").write_text("mine")
    assert resolve_policy_path(shipped) == shipped  # one in the working directory comes first
    with pytest.raises(ValueError, match="checkpoint not found: 'checkpoints/nope.pt'.*allowed: a policy file"):
        make_agent("ppo:checkpoints/nope.pt")


def test_compiled_greedy_on_observations_matches_the_greedy_agent():
    """greedy_from_observations (the training opponents' greedy) is greedy_action on every position."""
    for n in (2, 3, 4):
        env = allfives_env.env(num_players=n)
        env.reset(seed=n)
        off = default_layout(n).offset("placement_points")
        rng = np.random.default_rng(n)
        checked = 0
        for _ in range(1500):
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.reset(seed=int(rng.integers(1 << 30)))
                continue
            game = env.unwrapped.game
            legal = game.legal_actions()
            expected = greedy_action(game, legal)
            got = greedy_from_observations(obs["observation"][None], obs["action_mask"][None], off, np.empty(1, np.int64))[0]
            assert got == expected, (n, legal, got, expected)
            checked += len(legal) > 1
            env.step(int(legal[int(rng.integers(len(legal)))]))
        assert checked > 300
