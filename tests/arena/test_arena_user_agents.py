"""A user's own agents in the arena: objects at several seats, how they are named, and agents that fail
(one line naming the agent and the game, from run_match and from the command line)."""

import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from allfives_env.agents.base import BaseAgent
from allfives_env.agents.random_agent import RandomAgent
from allfives_env.arena import run_match
from allfives_env.arena.game import AgentError, play_game
from allfives_env.arena.match import agent_labels
from allfives_env.rules import RulesConfig
from allfives_env.rules.actions import DRAW, PASS


def scores(match):
    return [game.scores for game in match.games]


class SeatKeeper(BaseAgent):
    """Random, and it checks that it is asked only for the seat it was last reset for."""

    def act(self, view, legal_actions):
        assert view.seat == self.seat, (view.seat, self.seat)
        return legal_actions[int(self.rng.integers(len(legal_actions)))]


class Failing(BaseAgent):
    """Plays the first legal action until its ``after``-th choice, then fails as ``how`` says."""

    def __init__(self, how="raise", after=3):
        super().__init__()
        self.how, self.after, self.calls = how, after, 0

    def act(self, view, legal_actions):
        self.calls += 1
        if self.calls < self.after:
            return legal_actions[0]
        if self.how == "raise":
            raise KeyError("no such weight")
        return {"illegal": 999, "none": None, "half": 2.5, "array": np.array([legal_actions[0]])}[self.how]


# ---------------------------------------------------------------- objects at several seats
def test_an_object_playing_a_partnership_plays_the_games_of_its_spec():
    """4 players: the object sits at both seats of its side; each seat gets its own copy, reset for its
    seat with its own generator, so the games are those of the spec string."""
    config = RulesConfig(num_players=4)
    by_spec = run_match(config, ["random", "greedy"], games=8, seed=3)
    by_object = run_match(config, [RandomAgent(), "greedy"], games=8, seed=3)
    assert scores(by_object) == scores(by_spec)
    run_match(config, [SeatKeeper(), SeatKeeper()], games=4, seed=1)  # each copy acts only for its seat


def test_the_same_object_given_twice_plays_as_two_agents():
    config = RulesConfig(num_players=2)
    agent = RandomAgent()
    assert scores(run_match(config, [agent, agent], games=6, seed=5)) == scores(
        run_match(config, ["random", "random"], games=6, seed=5))


def test_an_object_that_cannot_be_copied_is_refused_before_a_game_when_it_needs_a_copy():
    class Uncopyable(RandomAgent):
        def __deepcopy__(self, memo):
            raise TypeError("holds a device handle")

    with pytest.raises(ValueError, match=r"plays more than one seat .* cannot be copied \(TypeError: holds a "
                                         r"device handle\); allowed: a spec string"):
        run_match(RulesConfig(num_players=4), [Uncopyable(), "greedy"], games=2)
    run_match(RulesConfig(num_players=2), [Uncopyable(), "greedy"], games=2)  # one seat: no copy needed


# ---------------------------------------------------------------- names
def test_objects_are_named_without_memory_addresses_and_told_apart():
    class Plain:
        def reset(self, seat, config, rng):
            pass

        def act(self, view, legal_actions):
            return legal_actions[0]

    labels = agent_labels([Plain(), Plain(), RandomAgent(), "random", "greedy"])
    plain = f"{__name__}:test_objects_are_named_without_memory_addresses_and_told_apart.<locals>.Plain"
    assert labels == [plain, f"{plain} #2", "random", "random #2", "greedy"]  # an object's own name; never shared
    assert agent_labels(["greedy", "greedy"]) == ["greedy", "greedy"]  # the same spec: the same agent
    match = run_match(RulesConfig(num_players=2), [Plain(), Plain()], games=2, seed=0)
    assert [row["spec"] for row in match.to_dict()["agents"]] == [plain, f"{plain} #2"]
    assert "0x" not in json.dumps(match.to_dict())
    with pytest.raises(ValueError, match=r"labels=\['one'\] is not allowed; allowed: None, or one name"):
        run_match(RulesConfig(num_players=2), [Plain(), "greedy"], games=2, labels=["one"])
    # a name given to two different agents printed two rows no one could tell apart
    with pytest.raises(ValueError, match=r"^labels=\['a', 'a', 'b'\] is not allowed: 'a' names two different agents "
                                         r"\(specs 0 and 1\); allowed: one name per agent"):
        run_match(RulesConfig(num_players=3), ["greedy", "random", "greedy"], games=3, labels=["a", "a", "b"])
    with pytest.raises(ValueError, match="'p' names two different agents"):
        run_match(RulesConfig(num_players=2), [Plain(), Plain()], games=2, labels=["p", "p"])
    same = Plain()
    for specs in (["greedy", "greedy", "random"], [same, same, "random"]):  # the same agent twice: one name
        match = run_match(RulesConfig(num_players=3), specs, games=3, seed=0, labels=["a", "a", "b"])
        assert [row["spec"] for row in match.to_dict()["agents"]] == ["a", "a", "b"]


# ---------------------------------------------------------------- agents that fail
@pytest.mark.parametrize("how, words", [
    ("raise", "failed in act(): KeyError: 'no such weight' (at "),
    ("illegal", "chose an illegal action 999; legal: ["),
    ("none", "did not return an action id: action None is not an integer; allowed: integers 0..113"),
    ("half", "did not return an action id: action 2.5 is not an integer"),
])
@pytest.mark.parametrize("workers", [1, 2])
def test_a_failing_agent_is_one_error_naming_it_and_the_game(how, words, workers):
    with pytest.raises(AgentError) as caught:
        run_match(RulesConfig(num_players=2), [Failing(how), "greedy"], games=8, seed=4, workers=workers)
    message = str(caught.value)
    assert message.startswith(f"agent '{__name__}:Failing' (seat ")
    assert "deal 0, rotation 0 of the match on seed 4)" in message and words in message and "\n" not in message
    if how == "raise":
        assert f"{os.path.basename(__file__)}:" in message  # the line of the agent's code that raised


def test_a_one_element_array_is_an_action_as_the_envs_take_it():
    match = run_match(RulesConfig(num_players=2), [Failing("array", after=1), "greedy"], games=2, seed=0)
    assert len(match.games) == 2


def test_an_agent_that_fails_in_reset_is_named():
    class BadReset(RandomAgent):
        def reset(self, seat, config, rng):
            raise RuntimeError("no GPU")

    with pytest.raises(AgentError, match=r"BadReset' \(seat 0, deal 0, rotation 0 .*\) failed in reset\(\): "
                                         r"RuntimeError: no GPU \(at "):
        run_match(RulesConfig(num_players=2), [BadReset(), "greedy"], games=2)


# ---------------------------------------------------------------- the user's class from the command line
AGENT_MODULE = """
from allfives_env.agents.base import BaseAgent


class Lowest(BaseAgent):
    def __init__(self, prefer="low"):
        super().__init__()
        if prefer not in ("low", "high"):
            raise ValueError(f"prefer={prefer!r}; allowed: low, high")
        self.prefer = prefer

    def act(self, view, legal_actions):
        return min(legal_actions) if self.prefer == "low" else max(legal_actions)


class Raises(Lowest):
    def act(self, view, legal_actions):
        return {}["weights"]


class NeedsPath(Lowest):
    def __init__(self, model_path):
        super().__init__()


class ResetFails(Lowest):
    def reset(self, seat, config, rng):
        raise RuntimeError("no GPU here")


class ThreePlayersOnly(Lowest):
    def reset(self, seat, config, rng):
        if config.num_players != 3:
            raise ValueError("I only play 3 players")
"""


@pytest.fixture
def user_module(tmp_path):
    (tmp_path / "mybots.py").write_text(textwrap.dedent(AGENT_MODULE))
    return tmp_path


def allfives(folder, *argv, pythonpath=True):
    env = {**os.environ, "PYTHONPATH": str(folder) if pythonpath else ""}
    script = "import sys; from allfives_env.cli import main; sys.exit(main(sys.argv[1:]))"
    # run as the console script does: the working folder is not on sys.path (python -c puts '' there)
    code = f"import sys; sys.path = [p for p in sys.path if p != '']; {script}"
    return subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=folder, env=env,
                          timeout=120)


def one_line(proc, status):
    assert proc.returncode == status, (proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


def test_the_users_class_plays_and_its_failures_are_one_line(user_module):
    ok = allfives(user_module, "eval", "--players", "2", "--agents", "mybots:Lowest:prefer=high", "greedy",
                  "--games", "4", "--json", "out.json")
    assert ok.returncode == 0, ok.stderr
    assert json.loads((user_module / "out.json").read_text())["agents"][0]["spec"] == "mybots:Lowest:prefer=high"
    raised = one_line(allfives(user_module, "eval", "--agents", "mybots:Raises", "greedy", "--games", "4",
                               "--json", "failed.json"), 1)
    assert raised.startswith("allfives eval: error: agent 'mybots:Raises' (seat ")
    assert "failed in act(): KeyError: 'weights' (at " in raised and "mybots.py:" in raised
    assert not (user_module / "failed.json").exists()  # nothing half written
    needs = one_line(allfives(user_module, "eval", "--agents", "mybots:NeedsPath", "greedy"), 2)
    assert "agent spec 'mybots:NeedsPath': NeedsPath(...) failed: TypeError:" in needs and "model_path" in needs
    assert "(at " not in needs  # the call itself failed: no line of the package's to point at
    refused = one_line(allfives(user_module, "eval", "--agents", "mybots:Lowest:prefer=mid", "greedy"), 2)
    assert "prefer='mid'; allowed: low, high" in refused and "mybots:Lowest:prefer=mid" in refused
    colon = one_line(allfives(user_module, "eval", "--agents", "mybots:Lowest:prefer=high:extra=1", "greedy"), 2)
    assert "options follow a ','" in colon


def test_a_module_in_the_working_folder_says_how_to_find_it(user_module):
    line = one_line(allfives(user_module, "eval", "--agents", "mybots:Lowest", "greedy", pythonpath=False), 2)
    assert "cannot import module 'mybots'" in line and "PYTHONPATH=." in line


def test_a_module_that_fails_on_import_is_one_line(tmp_path):
    (tmp_path / "broken.py").write_text("raise RuntimeError('config file missing')\n")
    line = one_line(allfives(tmp_path, "eval", "--agents", "broken:Bot", "greedy"), 2)
    assert "agent spec 'broken:Bot': importing 'broken' failed: RuntimeError: config file missing (at " in line


def test_a_rating_pool_names_each_member_alike_in_every_match():
    from allfives_env.arena import rate_agents

    class Named(RandomAgent):
        name = "mine"

    rating = rate_agents(RulesConfig(num_players=2), [Named(), Named(), "greedy"], games=2, seed=0)
    assert [row["spec"] for row in rating["agents"]] == ["mine", "mine #2", "greedy"]
    for match in rating["matches"]:
        assert [row["spec"] for row in match["agents"]] == match["specs"]


def test_a_bug_in_a_shipped_agent_shows_its_traceback(monkeypatch):
    """What the package's own players raise is its bug, not an agent's failure: not wrapped."""
    from allfives_env.agents.greedy import GreedyAgent

    monkeypatch.setattr(GreedyAgent, "act", lambda self, view, legal: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        run_match(RulesConfig(num_players=2), ["greedy", "random"], games=2)


def test_an_import_that_fails_inside_the_users_module_is_not_called_missing(tmp_path):
    (tmp_path / "needsdep.py").write_text("import no_such_dependency_xyz\n")
    line = one_line(allfives(tmp_path, "eval", "--agents", "needsdep:Bot", "greedy"), 2)
    assert "importing 'needsdep' failed: ModuleNotFoundError: No module named 'no_such_dependency_xyz'" in line
    assert "unknown agent spec" not in line


@pytest.mark.parametrize("command", [["eval", "--games", "4"], ["rate", "--games", "2"], ["watch", "--delay", "0"]])
def test_a_class_that_cannot_sit_down_is_one_line_naming_it(user_module, command):
    """reset() fails before any game (when the arena seats each spec, or a table seats its agents)."""
    name, *rest = command
    agents = ["mybots:ResetFails", "greedy"] + (["random"] if name == "rate" else [])
    line = one_line(allfives(user_module, name, "--agents", *agents, *rest), 2)
    assert "mybots:ResetFails" in line and "failed in reset(): RuntimeError: no GPU here (at " in line
    refused = one_line(allfives(user_module, name, "--agents", "mybots:ThreePlayersOnly", *agents[1:], *rest), 2)
    assert "mybots:ThreePlayersOnly" in refused and "cannot play this game: I only play 3 players" in refused


class BrokenReset(RandomAgent):
    def reset(self, seat, config, rng):
        raise RuntimeError("no GPU")


class WrongSignature(RandomAgent):
    def reset(self, seat, config):  # the protocol passes rng too
        pass


def test_the_web_server_refuses_an_agent_that_cannot_sit_down_in_one_line():
    pytest.importorskip("starlette")
    from allfives_env.play.web.app import check_agent_specs

    with pytest.raises(ValueError, match=rf"^agent '{__name__}:BrokenReset' failed in reset\(\): RuntimeError: "
                                         r"no GPU \(at .*test_arena_user_agents.py:\d+\)$"):
        check_agent_specs(RulesConfig(num_players=2), [f"{__name__}:BrokenReset", "greedy"])


def test_a_method_called_with_the_wrong_arguments_points_at_no_line_of_the_package():
    with pytest.raises(AgentError) as caught:
        run_match(RulesConfig(num_players=2), [WrongSignature(), "greedy"], games=2)
    message = str(caught.value)
    assert "failed in reset(): TypeError:" in message and "(at " not in message


class ChoiceCounter(BaseAgent):
    """Plays the last legal action; counts its calls and any call with a single legal action."""

    def __init__(self):
        super().__init__()
        self.calls, self.forced = 0, []

    def act(self, view, legal_actions):
        self.calls += 1
        if len(legal_actions) < 2:
            self.forced.append(tuple(legal_actions))
        return legal_actions[-1]


def test_a_single_legal_action_is_played_without_asking_the_agent():
    """R12/R13: a forced draw, a forced pass or a drawn tile's only place is taken by the arena itself
    (``choose_action``: "A forced step ... is taken without asking the agent").
    Catches (arena/game.py choose_action: the ``len(legal) == 1`` shortcut dropped)."""
    agents = [ChoiceCounter(), ChoiceCounter(), ChoiceCounter()]
    game, hands, _, record = play_game(RulesConfig(num_players=3, target=100), agents, deal_seed=5, record=True)
    assert game.game_over and all(agent.calls > 0 for agent in agents)
    assert [agent.forced for agent in agents] == [[], [], []]
    steps = sum(len(hand["actions"]) for hand in record["hands"])
    forced_steps = sum(1 for hand in record["hands"] for a in hand["actions"] if a in (DRAW, PASS))
    assert forced_steps > 0 and sum(agent.calls for agent in agents) < steps


def test_play_game_counts_the_hands_it_played():
    """``play_game`` returns the hands played: one per recorded hand.
    Catches (arena/game.py play_game: ``hand_index + 1`` -> ``hand_index``)."""
    game, hands, _, record = play_game(RulesConfig(num_players=2, target=100), [ChoiceCounter(), ChoiceCounter()],
                                       deal_seed=7, record=True)
    assert hands == len(record["hands"]) == game.hand_number + 1 >= 2
    match = run_match(RulesConfig(num_players=2, target=100), ["greedy", "random"], games=2, seed=7)
    assert all(g.hands >= 1 for g in match.games)


def test_a_spec_is_built_once_per_seat_and_a_match_inside_an_agent_keeps_the_outer_agents(monkeypatch):
    """Agents are built once per seat for a match played inline, kept by that match alone: a match an
    agent runs inside its own reset (nested) neither reuses nor drops the outer match's agents."""
    from allfives_env.agents import registry

    built = []

    class Nesting(RandomAgent):
        def reset(self, seat, config, rng):
            super().reset(seat, config, rng)
            run_match(RulesConfig(num_players=2), ["random", "greedy"], games=2, seed=1)

    monkeypatch.setattr(registry, "_REGISTERED", dict(registry._REGISTERED))
    registry.register_agent("test_nesting", lambda: built.append(1) or Nesting())
    match = run_match(RulesConfig(num_players=2), ["test_nesting", "random"], games=6, seed=0)
    assert len(match.games) == 6
    assert len(built) == 3  # one to check the spec before any game, then one per seat it sits at
