"""The `champion` spec: the compiled search with heuristic rollouts, plus a policy's value one move ahead.

The look-ahead (:class:`LeafValues`) is checked against a Python twin built from the rules engine and the
``ppo:PATH`` agent: from the true position, each placement is made, every other seat plays the agent's
move, forced draws and passes are played, and the trial ends at the searcher's next real decision (the
policy's value of that view) or at the game's end (+-1), with 0.02 per zero-sum point on the way.
"""

from pathlib import Path

import numpy as np
import pytest
from support import paired_positions, placements, plus_look_ahead, random_states

from allfives_env.agents import make_agent
from allfives_env.agents.champion import (
    CHAMPION_PRIOR_WEIGHT,
    CHAMPION_READ,
    CHAMPION_REPLIES,
    CHAMPION_SAMPLES,
    CHAMPION_VALUE,
    CHAMPION_WORLDS,
    GAMMA,
    POINTS_PER_RETURN,
    ChampionAgent,
    LeafValues,
)
from allfives_env.agents.heuristic import HeuristicAgent
from allfives_env.agents.search_compiled import copy_game
from allfives_env.compiled.rules import apply_action
from allfives_env.compiled.state import F_TARGET
from allfives_env.rules.actions import DRAW
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.view import player_view

ROOT = Path(__file__).resolve().parents[2]
# for 3 players the file the champion reads (reply_control inputs), so its look-ahead keeps a twin test
POLICY = {2: str(ROOT / "checkpoints/ppo_2p.pt"), 3: str(ROOT / "checkpoints/champion_value_3p.pt"),
          4: str(ROOT / "checkpoints/ppo_4p.pt")}


def _python_trial(game, action, agent):
    """The game after ``action`` and the answers, up to the mover's next real decision, the hand's end or
    the game's end."""
    seat = game.to_move
    g = game.clone()
    g.step(action)
    while not g.hand_over:
        legal = g.legal_actions()
        if len(legal) == 1 and legal[0] >= DRAW:  # a forced draw or pass, whoever's
            g.step(legal[0])
            continue
        if g.to_move == seat:
            break
        g.step(agent.act(player_view(g, g.to_move), legal))
    return g


def _python_value(game, g, agent):
    seat, side, sides = game.to_move, game.config.side_of(game.to_move), game.config.num_sides
    gained = [g.scores[s] - game.scores[s] for s in range(sides)]
    value = (gained[side] - (sum(gained) - gained[side]) / (sides - 1)) / POINTS_PER_RETURN
    if g.game_over:
        drawn = len(g.winners) > 1
        return value + (0.0 if drawn else (1.0 if side in g.winners else -1.0))
    view = player_view(g, seat)
    x = agent.input_vector(view, view.legal_actions)
    return value + GAMMA * float(agent.policy.values(x[None, :])[0])


@pytest.mark.parametrize("replies", ["policy", "heuristic"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_look_ahead_trials_equal_the_python_twin(players, replies):
    """The other seats answer with the policy's most likely move (``replies=policy``) or the heuristic
    agent's (``replies=heuristic``); the policy's value scores the end either way."""
    config_options = dict(num_players=players)
    agent = make_agent(f"ppo:{POLICY[players]}")
    mover = agent if replies == "policy" else HeuristicAgent()
    leaf = LeafValues(POLICY[players], worlds=1, replies=replies)
    compared = ended_game = 0
    for game, venv in paired_positions(config_options, seed=30 + players, hands_to_play=4 if players < 4 else 8):
        legal = placements(game)
        if len(legal) < 2:
            continue
        if compared == 0:
            agent.reset(0, venv.config, np.random.default_rng(0))
            mover.reset(0, venv.config, np.random.default_rng(0))
            leaf.reset(venv.config, np.random.default_rng(0))
        target = venv._fcfg[F_TARGET]
        for k, action in enumerate(legal):  # row k: the true position after placement k
            copy_game(venv._st, venv._hands, venv._scores, 0, leaf.xst, leaf.xhands, leaf.xscores, k)
            apply_action(leaf.xst, k, leaf.xhands, leaf.xscores, leaf.xgains, venv._cfg, target, action)
        got = leaf.trial_values(len(legal), game.to_move, game.config.side_of(game.to_move), game.scores)
        for k, action in enumerate(legal):
            g = _python_trial(game, action, mover)
            if g.hand_over and not g.game_over:
                continue  # the compiled trial deals the next hand at random: no twin from here
            assert got[k] == pytest.approx(_python_value(game, g, agent), abs=1e-4)
            compared += 1
            ended_game += g.game_over
    assert compared > 100 and ended_game > 0


def test_look_ahead_values_are_seeded_and_cover_the_placements():
    config = RulesConfig(num_players=2)
    leaves = [LeafValues(POLICY[2], worlds=4) for _ in range(3)]
    for leaf, seed in zip(leaves, (5, 5, 6)):
        leaf.reset(config, np.random.default_rng(seed))
    checked = differs = 0
    for game, _ in random_states(2, 2, seed=8):
        legal = placements(game)
        if len(legal) < 2:
            continue
        view = player_view(game, game.to_move)
        (a, va), (b, vb), (c, vc) = (leaf.values(view) for leaf in leaves)
        assert list(a) == list(b) == list(c) == legal
        assert np.array_equal(va, vb) and np.all(np.isfinite(va))
        assert np.all(np.abs(va) <= 3.0)  # a return: at most one game's outcome plus a hand's points, discounted
        differs += not np.array_equal(va, vc)
        checked += 1
        if checked == 15:
            break
    assert checked == 15 and differs > 0


@pytest.mark.parametrize("players", [2, 3, 4])
def test_champion_adds_the_weighted_look_ahead_to_the_compiled_search(players):
    config = RulesConfig(num_players=players)
    value = POLICY.get(players)
    spec = f"champion:samples=6,worlds=3,value={value or 'none'},read=off"
    champion = make_agent(spec)
    search = make_agent("search:engine=compiled,rollout=heuristic,samples=6,"
                        f"prior_weight={CHAMPION_PRIOR_WEIGHT[players]}")
    leaf = LeafValues(value, worlds=3) if value else None
    champion.reset(0, config, np.random.default_rng(4))
    rng = np.random.default_rng(4)  # the champion's order: the search's stream first, then the look-ahead's
    search.reset(0, config, rng)
    if leaf:
        leaf.reset(config, rng)
    compared = 0
    for game, _ in random_states(players, 1, seed=players):
        legal = game.legal_actions()
        if len(legal) < 2 or legal[0] >= DRAW:
            continue
        view = player_view(game, game.to_move)
        want = search.action_values(view, legal)
        if leaf:
            want = plus_look_ahead(want, leaf.values(view), legal, POINTS_PER_RETURN)
        assert champion.action_values(view, legal) == pytest.approx(want, abs=1e-9)
        compared += 1
        if compared == 10:
            break
    assert compared == 10


@pytest.mark.parametrize("players", [2, 3, 4])
def test_champion_defaults_by_player_count(players):
    config = RulesConfig(num_players=players)
    champion = make_agent("champion")
    champion.reset(0, config, np.random.default_rng(0))
    assert (champion.engine, champion.rollout, champion._samples) == ("compiled", "heuristic",
                                                                       CHAMPION_SAMPLES[players])
    assert champion._compiled.searcher.prior_weight == CHAMPION_PRIOR_WEIGHT[players]
    if CHAMPION_VALUE[players] is None:
        assert champion.leaf_values is None
    else:
        assert Path(champion.leaf_values.path).resolve() == (ROOT / CHAMPION_VALUE[players]).resolve()
        assert champion.leaf_values.worlds == CHAMPION_WORLDS[players]
        assert champion.leaf_values.replies == CHAMPION_REPLIES[players]
    assert champion.read == CHAMPION_READ[players]
    assert (champion.reader is not None) == (players == 4)
    if players == 4:
        assert champion.reader.partner_only


def test_no_default_reads_the_opponents():
    """Issue 24, item 3: reading every other seat (``read=heuristic``) models the opponents, so it is
    never a default; ``read=partner`` with 2 or 3 players has no partner to read."""
    assert CHAMPION_READ == {2: "off", 3: "off", 4: "partner"}
    for players in (2, 3):
        champion = make_agent("champion:read=partner,value=none")
        champion.reset(0, RulesConfig(num_players=players), np.random.default_rng(0))
        assert champion.reader is None
    champion = make_agent("champion:read=heuristic,value=none")
    champion.reset(0, RulesConfig(num_players=4), np.random.default_rng(0))
    assert not champion.reader.partner_only


def test_a_given_prior_weight_holds_for_every_player_count():
    assert CHAMPION_PRIOR_WEIGHT == {2: 0.0, 3: 0.0, 4: 1.0}  # 2 and 3 players: better without (docs/history.md)
    for players in (2, 3, 4):
        champion = make_agent("champion:prior_weight=0.5,value=none")
        champion.reset(0, RulesConfig(num_players=players), np.random.default_rng(0))
        assert champion._compiled.searcher.prior_weight == 0.5


def test_a_value_file_trained_with_an_opponent_model_is_read_without_it():
    """The 4-player file was trained with the greedy exclusions in its inputs (``lookahead_infer``); as
    ``ppo:PATH`` by default, the look-ahead assumes nothing of who it plays."""
    assert make_agent(f"ppo:{POLICY[4]}").features == "lookahead"
    assert LeafValues(POLICY[4]).features == "lookahead"


def test_champion_bad_options_say_what_is_allowed(tmp_path):
    with pytest.raises(ValueError, match="has no option 'engine'"):
        make_agent("champion:engine=python")
    with pytest.raises(ValueError, match=r"^champion: checkpoint not found: .*missing\.pt.*value=none"):
        make_agent(f"champion:value={tmp_path / 'missing.pt'}")
    with pytest.raises(ValueError, match=r"^champion: checkpoint '.*' is a folder, not a file .*value=none"):
        make_agent(f"champion:value={tmp_path}")
    # the search alone: the look-ahead's options would change nothing, so they are refused, not ignored
    with pytest.raises(ValueError, match="^worlds, replies: options of the policy's look-ahead, which value=none turns "
                                         "off; allowed with value=none: samples, prior_weight, win_value, read"):
        make_agent("champion:value=none,worlds=5,replies=policy,samples=2")
    for option in ("value_weight=10", "any_rules=true"):
        with pytest.raises(ValueError, match=f"^{option.split('=')[0]}: options of the policy's look-ahead"):
            make_agent(f"champion:value=none,{option}")
    assert make_agent("champion:value=none,any_rules=false,samples=2").samples == 2
    with pytest.raises(ValueError, match="^replies='search' is not allowed; allowed: 'policy' or 'heuristic'"):
        make_agent("champion:replies=search")
    with pytest.raises(ValueError, match="^read='greedy' is not allowed; allowed: 'off', 'partner' .* or 'heuristic'"):
        make_agent("champion:read=greedy")
    # none is refused in a spec where it would have read as the default (read=none was hand reading with 4 players)
    with pytest.raises(ValueError, match=r"^read=none is not allowed; allowed: 'off', 'partner' or 'heuristic', or no "
                                         r"read for its default \(in agent spec 'champion:read=none'\)$"):
        make_agent("champion:read=none")
    with pytest.raises(ValueError, match="^replies=none is not allowed; allowed: 'policy' or 'heuristic', or no replies"):
        make_agent("champion:replies=none")
    with pytest.raises(ValueError, match="^engine=none is not allowed; allowed: 'python' or 'compiled', or no engine"):
        make_agent("search:engine=none")
    four = RulesConfig(num_players=4)
    for agent, read in ((make_agent("champion:read=off,value=none"), "off"), (make_agent("champion:value=none"), "partner"),
                        (ChampionAgent(value=None, read=None), "partner")):  # None from Python: the default
        agent.reset(0, four, np.random.default_rng(0))
        assert agent.read == read
    with pytest.raises(ValueError, match="worlds=0 is not allowed; allowed: a whole number from 1 to 100,000"):
        make_agent(f"champion:value={POLICY[2]},worlds=0")
    three = make_agent(f"champion:value={POLICY[3]}")
    with pytest.raises(ValueError, match="was trained for 3 players; this game has 2"):
        three.reset(0, RulesConfig(num_players=2), np.random.default_rng(0))
    with pytest.raises(ValueError, match="rollout='policy' is not allowed; allowed: 'greedy' \\(the default\\) or 'heuristic'"):
        make_agent("search:rollout=policy")
    assert make_agent("search").rollout == "greedy"


def test_the_default_value_files_are_the_shipped_ones_whatever_the_working_directory(tmp_path, monkeypatch):
    """A checkpoints/ppo_2p.pt of the working directory (here a 3-player file) is not the 2-player value."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    (tmp_path / "checkpoints" / "ppo_2p.pt").write_bytes((ROOT / "allfives_env" / "checkpoints" / "ppo_3p.pt").read_bytes())
    champion = make_agent("champion")
    champion.reset(0, RulesConfig(num_players=2), np.random.default_rng(0))
    assert champion.leaf_values.path == str(ROOT / "allfives_env" / "checkpoints" / "ppo_2p.pt")


@pytest.mark.parametrize("divisor, start", [(5, 240), (3, 241)])
def test_the_champion_takes_a_placement_that_wins_the_game_now(divisor, start):
    """Leading [4|6] (count 10) at 240 of 250, or [3|6] (9) at 241 in All Threes, wins at once (R25); the
    look-ahead valued playing on higher than a win's return, so the champion used to lead [1|1]."""
    from allfives_env.agents import make_agent
    from allfives_env.rules import Game, RulesConfig
    from allfives_env.rules.actions import action_name
    from allfives_env.rules.tiles import tile_index as T
    from allfives_env.rules.view import player_view

    hands = [[T(3, 6), T(4, 6), T(0, 0), T(0, 1), T(0, 2), T(1, 1), T(1, 2), T(2, 2), T(0, 4)],
             [T(6, 6), T(1, 3), T(1, 4), T(1, 5), T(2, 3), T(2, 4), T(2, 5), T(2, 6), T(0, 3)]]
    rest = sorted(set(range(28)) - set(hands[0]) - set(hands[1]))
    config = RulesConfig(num_players=2, divisor=divisor)
    game = Game(config)
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=rest, leader=0, scores=[start, 0])
    view = player_view(game, 0)
    champion = make_agent("champion" if divisor == 5 else "champion:any_rules=true")
    champion.reset(0, config, np.random.default_rng(1))
    action = champion.act(view, view.legal_actions)
    game.step(action)
    assert game.game_over and tuple(game.winners) == (0,), action_name(action)


@pytest.mark.parametrize("make", [lambda: ChampionAgent(value=True), lambda: make_agent("champion:value=true")])
def test_champion_refuses_a_boolean_value_as_an_option_not_as_a_missing_file(make):
    """Catches value=true taken for a path (a search for a file named 'True') instead of refused as a value."""
    with pytest.raises(ValueError, match=r"value=True is not allowed; allowed: a policy file, default or none") as err:
        make()
    assert "not found" not in str(err.value) and len(str(err.value).splitlines()) == 1
