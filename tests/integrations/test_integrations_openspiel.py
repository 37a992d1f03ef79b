"""All Fives as the OpenSpiel game ``python_allfives``: conformance, chance nodes, parity with the AEC env,
ISMCTS resampling, an OpenSpiel bot and an OpenSpiel learner on it, bad parameters."""

import math

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from open_spiel.python import rl_environment
from open_spiel.python.algorithms import evaluate_bots, ismcts, mcts
from open_spiel.python.bots import uniform_random
from support import load_script

import allfives_env
from allfives_env.env.encoders import make_encoder
from allfives_env.integrations import openspiel as aos  # registers the game
from allfives_env.rules import RulesConfig
from allfives_env.rules.actions import DRAW, NUM_ACTIONS, PASS, action_name
from allfives_env.rules.tiles import mask_to_tiles
from allfives_env.rules.view import player_view

VARIANT = {"hand_size": "five_each", "divisor": 3, "hand_scoring": "penalty", "first_leader": "heaviest_tile"}


def load(**params):
    return pyspiel.load_game(aos.GAME_NAME, params)


def step_random(state, rng):
    """One random step: a chance outcome by its probability, or a uniform legal action; returns it."""
    if state.is_chance_node():
        outcomes, probs = zip(*state.chance_outcomes())
        action = int(rng.choice(outcomes, p=probs))
    else:
        action = int(rng.choice(state.legal_actions()))
    state.apply_action(action)
    return action


def play(state, rng, on_decision=None):
    """Random play to the end, calling ``on_decision(state)`` before each decision; returns the state."""
    while not state.is_terminal():
        if on_decision is not None and not state.is_chance_node():
            on_decision(state)
        step_random(state, rng)
    return state


def finish_deal(state, rng):
    while state.is_chance_node():
        step_random(state, rng)


# ------------------------------------------------------------------ conformance
@pytest.mark.parametrize("params", [
    {"players": 2}, {"players": 3}, {"players": 4},
    {"players": 3, "reward": "zero_sum", **VARIANT},
    {"players": 4, "reward": "win", "episode": "hand", "hand_scoring": "bonus_net"},
])
def test_openspiel_random_sim_test(params):
    """OpenSpiel's own C++ checks (pyspiel.random_sim_test works with Python games): sorted legal
    actions, clones, chance probabilities, rewards summing to returns, returns within the utility range."""
    game = load(**params)
    pyspiel.random_sim_test(game, num_sims=3, serialize=False, verbose=False)


def test_serialized_states_replay_to_the_same_state():
    """OpenSpiel's default serialization replays the action history: the chance outcomes carry the deal."""
    game = load(players=2, episode="hand")
    state = play(game.new_initial_state(), np.random.default_rng(3))
    copy = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, state))[1]
    assert str(copy) == str(state) and copy.returns() == state.returns()


def test_game_type_and_sizes_follow_the_parameters():
    game = load(players=4)
    assert game.num_players() == 4 and game.num_distinct_actions() == NUM_ACTIONS == 114
    assert game.max_chance_outcomes() == 28
    assert game.get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM  # raw points
    assert game.information_state_tensor_shape() == [make_encoder("default", RulesConfig(num_players=4)).size]
    assert load(players=3, reward="zero_sum").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert load(players=4, reward="win").get_type().utility == pyspiel.GameType.Utility.ZERO_SUM
    assert load(players=3, reward="win").get_type().utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert load(players=2, reward="win").max_utility() == 1.0
    assert load(players=2, reward_scale=0.5).max_utility() == 0.5 * load(players=2).max_utility()
    assert game.get_parameters()["hand_size"] == "standard"


# ------------------------------------------------------------------ chance nodes
def test_leader_and_deal_are_uniform_chance_nodes_R4_R5():
    """R5: the first node draws the leader uniformly among the seats; R4: then every hand tile is
    dealt uniformly from the tiles left, seat by seat, and the rest is the boneyard."""
    game = load(players=3)
    state = game.new_initial_state()
    assert state.is_chance_node() and state.chance_outcomes() == [(s, 1 / 3) for s in range(3)]
    state.apply_action(2)
    rng = np.random.default_rng(0)
    dealt = []
    for k in range(3 * 7):
        outcomes = state.chance_outcomes()
        assert [o for o, _ in outcomes] == sorted(set(range(28)) - set(dealt))
        assert all(math.isclose(p, 1 / (28 - k)) for _, p in outcomes)
        dealt.append(int(rng.choice([o for o, _ in outcomes])))
        state.apply_action(dealt[-1])
    engine = state.engine
    assert not state.is_chance_node() and state.current_player() == 2 == engine.leader
    for seat in range(3):
        assert mask_to_tiles(engine.hands[seat]) == sorted(dealt[7 * seat:7 * seat + 7])
    assert sorted(engine.boneyard) == sorted(set(range(28)) - set(dealt))


def test_heaviest_tile_leader_is_uniform_V3():
    """V3: each seat draws a distinct tile and heaviness is a strict order, so each seat leads with 1/n."""
    state = load(players=4, first_leader="heaviest_tile").new_initial_state()
    assert state.chance_outcomes() == [(s, 0.25) for s in range(4)]


def test_a_draw_is_the_players_action_then_a_chance_node_R13():
    """R13/C1: 112 is the player's decision; the chance node offers every boneyard tile uniformly, the
    tile joins the drawer's hand, and if it fits the drawer must play it (the engine's rule)."""
    game = load(players=2, episode="hand")
    seen = 0
    for seed in range(20):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        while not state.is_terminal() and seen < 6:
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes)))
                continue
            legal = state.legal_actions()
            if legal == [DRAW]:
                seat, engine = state.current_player(), state.engine
                boneyard = sorted(engine.boneyard[engine.bone_pos:])
                state.apply_action(DRAW)
                assert state.is_chance_node() and state.phase == "draw"
                assert state.chance_outcomes() == [(t, 1 / len(boneyard)) for t in boneyard]
                tile = boneyard[int(rng.integers(len(boneyard)))]
                state.apply_action(tile)
                assert state.engine.hands[seat] >> tile & 1 and state.engine.events[-1][:3] == (seat, DRAW, tile)
                if not state.is_terminal() and state.current_player() == seat and state.engine.must_play >= 0:
                    assert {a >> 2 for a in state.legal_actions()} == {tile}
                seen += 1
                continue
            state.apply_action(int(rng.choice(legal)))
    assert seen == 6


def test_next_hand_leader_R19():
    """R19: after a domino the dominoing seat leads and no leader is drawn; after a block the next
    node draws the leader among all seats."""
    game = load(players=2)
    kinds = set()
    for seed in range(30):
        rng = np.random.default_rng(seed)
        state = game.new_initial_state()
        checked = set()
        while not state.is_terminal():
            engine = state.engine
            if engine is None or not engine.hand_over or engine.hand_number in checked:
                step_random(state, rng)
                continue
            checked.add(engine.hand_number)
            kinds.add(engine.hand_result.kind)
            if engine.hand_result.kind == "domino":
                domino_seat = engine.events[-1][0]
                assert state.phase == "deal"
                finish_deal(state, rng)
                assert state.engine.leader == state.current_player() == domino_seat
            else:
                assert state.phase == "leader" and state.chance_outcomes() == [(0, 0.5), (1, 0.5)]
        if kinds == {"domino", "block"}:
            break
    assert kinds == {"domino", "block"}


def test_action_strings_use_the_codec_names():
    game = load(players=2)
    state = game.new_initial_state()
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 1) == "leader: seat 1"
    state.apply_action(1)
    assert state.action_to_string(pyspiel.PlayerId.CHANCE, 12) == "tile [1|6]"
    for action in (0, 4 * 12 + 1, DRAW, PASS):
        assert state.action_to_string(0, action) == action_name(action)


# ------------------------------------------------------------------ parity with the AEC env
def _record(game, seed):
    """Play one hand episode at random; return the deal as the chance nodes drew it, per decision
    (seat, legal actions, rewards(), every seat's observation tensor), the actions and the final state."""
    rng = np.random.default_rng(seed)
    deal = {"leader": [], "deal": [], "draw": []}
    decisions, actions = [], []
    state = game.new_initial_state()
    while not state.is_terminal():
        if not state.is_chance_node():
            observations = [np.array(state.observation_tensor(p), np.float32) for p in range(game.num_players())]
            decisions.append((state.current_player(), state.legal_actions(), state.rewards(), observations))
        phase = state.phase
        action = step_random(state, rng)
        (deal[phase] if phase in deal else actions).append(action)
    return deal, decisions, actions, state


@pytest.mark.parametrize("num_players,reward,rules", [
    (2, "points", {}), (3, "zero_sum", {}), (4, "win", {}), (4, "points", {}),
    (3, "points", VARIANT), (2, "zero_sum", {"hand_scoring": "bonus_net", "hand_size": "seven_five"}),
])
def test_same_hands_as_the_aec_env(num_players, reward, rules):
    """Same deal (the AEC env gets the hands, the leader and the boneyard in the order the chance nodes
    drew it), same actions: the same seat to move, legal-action masks, every seat's observation vector
    and rewards at every decision, and the same returns at the end."""
    game = load(players=num_players, episode="hand", reward=reward, **rules)
    config = game.rules
    size = config.tiles_per_hand
    for seed in range(3):
        deal, decisions, actions, final = _record(game, seed=100 * num_players + seed)
        hands = [deal["deal"][i * size:(i + 1) * size] for i in range(num_players)]
        rest = sorted(set(range(28)) - set(deal["deal"]) - set(deal["draw"]))
        env = allfives_env.env(num_players=num_players, episode="hand", reward=reward, backend="python", **rules)
        env.reset(options={"hands": hands, "boneyard": deal["draw"] + rest, "leader": deal["leader"][0]})
        totals = np.zeros(num_players)
        for (seat, legal, rewards, observations), action in zip(decisions, actions):
            agent = env.agent_selection
            assert agent == f"player_{seat}"
            assert np.flatnonzero(env.observe(agent)["action_mask"]).tolist() == legal
            for p in range(num_players):
                np.testing.assert_array_equal(env.observe(f"player_{p}")["observation"], observations[p])
            assert rewards == pytest.approx([env.rewards[f"player_{p}"] for p in range(num_players)])
            env.step(action)
            totals += [env.rewards[f"player_{p}"] for p in range(num_players)]
        assert all(env.terminations.values())
        assert final.rewards() == pytest.approx([env.rewards[f"player_{p}"] for p in range(num_players)])
        assert final.returns() == pytest.approx(totals.tolist())


# ------------------------------------------------------------------ returns
@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_returns_are_the_score_sheet_R2_R3_R25(num_players):
    """Game episodes end when a side reaches the target (R3); "points" returns are each seat's side
    score (partners equal, R2), "zero_sum" the score minus the other sides' mean, "win" +1/-1 (R25)."""
    for seed in range(2):
        states = {}
        for reward in ("points", "zero_sum", "win"):
            game = load(players=num_players, reward=reward, target=100)
            states[reward] = play(game.new_initial_state(), np.random.default_rng(seed))
        engine = states["points"].engine
        config = engine.config
        scores = engine.scores
        assert engine.game_over and max(scores) >= 100
        side = [config.side_of(s) for s in range(num_players)]
        assert states["points"].returns() == [scores[side[s]] for s in range(num_players)]
        others = config.num_sides - 1
        assert states["zero_sum"].returns() == pytest.approx(
            [scores[side[s]] - (sum(scores) - scores[side[s]]) / others for s in range(num_players)])
        assert sum(states["zero_sum"].returns()) == pytest.approx(0.0)
        winners = set(engine.winners)
        assert states["win"].returns() == [
            (0.0 if len(winners) > 1 else 1.0) if side[s] in winners else -1.0 for s in range(num_players)]


def test_max_hands_caps_a_game():
    """OpenSpiel needs a finite game: a game still unfinished after max_hands hands ends there, scored as is."""
    game = load(players=2, target=1000, max_hands=2)
    state = play(game.new_initial_state(), np.random.default_rng(1))
    assert state.engine.hand_number == 1 and not state.engine.game_over
    assert state.returns() == list(state.engine.scores)
    assert state.hand_cap_reached()
    finished = play(load(players=2).new_initial_state(), np.random.default_rng(1))
    assert finished.engine.game_over and not finished.hand_cap_reached()
    one_hand = play(load(players=2, episode="hand", max_hands=1).new_initial_state(), np.random.default_rng(1))
    assert not one_hand.hand_cap_reached()  # a hand episode ends by its own rule, not at the cap


# ------------------------------------------------------------------ observations
@pytest.mark.parametrize("num_players", [2, 4])
def test_tensors_are_the_default_encoder_and_strings_follow_the_view(num_players):
    """Both tensors are DefaultEncoder's vector of the seat's view; the strings differ exactly when
    the seat's views differ (no two different views print the same)."""
    game = load(players=num_players)
    encoder = make_encoder("default", game.rules)
    by_string = {}

    def check(state):
        for p in range(num_players):
            view = player_view(state.engine, p)
            expected = view.observation(encoder.encode)
            np.testing.assert_array_equal(np.array(state.observation_tensor(p), np.float32), expected)
            np.testing.assert_array_equal(np.array(state.information_state_tensor(p), np.float32), expected)
            text = state.information_state_string(p)
            assert text == state.observation_string(p)
            assert by_string.setdefault(text, view.key()) == view.key()

    for seed in range(3):
        play(game.new_initial_state(), np.random.default_rng(seed), on_decision=check)
    assert len(by_string) > 100


def test_observer_gives_named_parts():
    game = load(players=2)
    observer = game.make_py_observer()
    state = game.new_initial_state()
    finish_deal(state, np.random.default_rng(0))
    observer.set_from(state, 0)
    assert observer.dict["hand"].sum() == 9 and observer.dict["hand"].shape == (28,)
    assert observer.string_from(state, 0) == state.information_state_string(0)
    with pytest.raises(ValueError, match="one seat's own view only"):
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=False,
                                                         private_info=pyspiel.PrivateInfoType.ALL_PLAYERS))


def test_clone_is_an_independent_engine_copy():
    game = load(players=3)
    state = game.new_initial_state()
    rng = np.random.default_rng(5)
    for _ in range(40):
        step_random(state, rng)
    before = str(state)
    copy = state.clone()
    assert str(copy) == before and copy.history() == state.history()
    assert copy.engine is not state.engine and copy._pos.setup is state._pos.setup
    play(copy, rng)
    assert str(state) == before and not state.is_terminal()


# ------------------------------------------------------------------ ISMCTS
def test_resample_from_infostate_keeps_the_view_and_redraws_the_hidden_tiles():
    """The Python twin of OpenSpiel's ResampleInfostateTest: for every seat, the resampled state has the
    same information state string and tensor and the same player to move; hidden tiles do change."""
    game = load(players=3, episode="hand")
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    changed = 0

    def check(state):
        nonlocal changed
        for p in range(3):
            other = state.resample_from_infostate(p, sampler)
            assert other.information_state_string(p) == state.information_state_string(p)
            assert other.information_state_tensor(p) == state.information_state_tensor(p)
            assert other.current_player() == state.current_player()
            assert other.engine.hands[p] == state.engine.hands[p]
            changed += other.engine.hands != state.engine.hands
        play(other, np.random.default_rng(0))  # a resampled world plays on to the end

    for seed in range(3):
        play(game.new_initial_state(), np.random.default_rng(seed), on_decision=check)
    assert changed > 0
    with pytest.raises(ValueError, match="resample needs a state in a hand's play"):
        game.new_initial_state().resample_from_infostate(0, sampler)


class _ISMCTSBot(ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTSBot has no restart_at, which evaluate_bots calls first; it keeps
    nothing between moves (each step searches afresh), so doing nothing is exact."""

    def restart_at(self, state):
        pass


@pytest.mark.parametrize("episode,games,simulations", [("hand", 4, 20), ("game", 1, 4)])
def test_ismcts_bot_plays_full_games(episode, games, simulations):
    """OpenSpiel's ISMCTS (resampling through resample_from_infostate) and evaluate_bots play whole
    episodes; an illegal choice would raise in apply_action."""
    game = load(players=2, episode=episode, reward="zero_sum", reward_scale=0.02)
    rs = np.random.RandomState(7)
    for k in range(games):
        bot = _ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, random_state=rs), 2.0, simulations, random_state=rs)
        bots = [bot, uniform_random.UniformRandomBot(1, rs)] if k % 2 == 0 else [
            uniform_random.UniformRandomBot(0, rs), bot]
        returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, rs)
        assert len(returns) == 2 and returns[0] == pytest.approx(-returns[1])


# ------------------------------------------------------------------ an OpenSpiel learner
def test_dqn_trains_a_few_episodes_on_rl_environment():
    """open_spiel.python.pytorch.dqn.DQN on rl_environment: finite losses, only legal actions, and the
    rewards rl_environment hands out add up to the returns."""
    torch = pytest.importorskip("torch")
    from open_spiel.python.pytorch import dqn

    torch.manual_seed(0)
    game = load(players=2, episode="hand", reward="zero_sum", reward_scale=0.02)
    env = rl_environment.Environment(game, seed=3)
    size = env.observation_spec()["info_state"][0]
    # learn_every >= 3: OpenSpiel's DQN creates its replay buffer at its second step, but learns first
    agents = [dqn.DQN(p, size, NUM_ACTIONS, hidden_layers_sizes=[32], batch_size=16, replay_buffer_capacity=500,
                      min_buffer_size_to_learn=16, learn_every=4, seed=p) for p in range(2)]
    losses = []
    for _ in range(12):
        time_step = env.reset()
        totals = np.zeros(2)
        while not time_step.last():
            player = time_step.observations["current_player"]
            output = agents[player].step(time_step)
            assert output.action in time_step.observations["legal_actions"][player]
            time_step = env.step([output.action])
            totals += time_step.rewards
            losses += [a.loss for a in agents if a.loss is not None]
        for agent in agents:
            agent.step(time_step)
        assert totals.tolist() == pytest.approx(env.get_state.returns())
    assert losses and all(math.isfinite(float(x)) for x in losses)


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("params,words", [
    ({"players": 5}, r"players=5 is not allowed; allowed: 2, 3 or 4"),
    ({"hand_size": "huge"}, r"hand_size='huge' is not allowed; allowed: \['standard'"),
    ({"episode": "match"}, r"episode='match' is not allowed; allowed: \['game', 'hand'\]"),
    ({"reward": "money"}, r"reward='money' is not allowed; allowed: \['points', 'zero_sum', 'win'\]"),
    ({"target": -5}, r"target=-5 is not allowed"),
    ({"max_hands": -1}, r"max_hands=-1 is not allowed"),
    ({"max_hands": 10 ** 8}, r"max_hands=100000000 is not allowed; allowed: a whole number from 1 to 1,000,000"),
    ({"target": 20000}, r"target=20000 is not allowed; allowed: a positive number of points up to 10,000, or 0 "
                        r"for the R3 target"),
    ({"reward_scale": 0.0}, r"reward_scale=0.0 is not allowed"),
])
def test_bad_parameters_fail_with_one_clear_line(params, words):
    with pytest.raises(ValueError, match=words):
        load(**params)


def test_openspiel_refuses_unknown_parameters_and_illegal_actions():
    with pytest.raises(pyspiel.SpielError, match="Unknown parameter 'colour'"):
        load(colour="red")
    state = load(players=2).new_initial_state()
    with pytest.raises(ValueError, match=r"action 7 is not allowed here; leader chance outcomes: \[0, 1\]"):
        state.apply_action(7)


def test_chance_outcomes_and_actions_are_refused_where_they_do_not_exist():
    """No made-up distribution at a decision or after the end, and no action after the end (as
    OpenSpiel's own games: chance_outcomes() is for chance nodes)."""
    rng = np.random.default_rng(3)
    state = load(players=2, episode="hand").new_initial_state()
    finish_deal(state, rng)
    seat = state.current_player()
    with pytest.raises(ValueError, match=f"^chance_outcomes\\(\\) is for chance nodes; this state is a decision of seat {seat}$"):
        state.chance_outcomes()
    play(state, rng)
    with pytest.raises(ValueError, match=r"^chance_outcomes\(\) is for chance nodes; this state is terminal$"):
        state.chance_outcomes()
    returns = state.returns()
    with pytest.raises(ValueError, match=r"^action 0 is not allowed here: the episode is over"):
        state.apply_action(0)
    assert state.is_terminal() and state.returns() == returns


def test_the_dqn_example_trains_and_scores_in_the_arena(tmp_path):
    """examples/openspiel_dqn.py: a learning curve and a final arena match, written as JSON."""
    import json

    example = load_script("examples/openspiel_dqn.py")
    out = tmp_path / "dqn.json"
    summary = example.main(["--minutes", "0.05", "--eval-every", "0.02", "--eval-games", "4", "--hidden", "32",
                            "--json", str(out)])
    assert summary["decisions"] > 0 and summary["hands"] > 0
    assert len(summary["curve"]) >= 2 and all(0 <= p["win_rate"] <= 1 for p in summary["curve"])
    assert summary["final"]["games"] == 4 and summary["final"]["spec"] == "openspiel_dqn"
    assert json.loads(out.read_text())["decisions"] == summary["decisions"]
    quiet = example.main(["--minutes", "0.02", "--eval-every", "0", "--eval-games", "2", "--hidden", "16"])
    assert quiet["curve"] == [] and quiet["decisions"] > 0 and quiet["final"]["games"] == 2  # 0: no curve points


def test_game_parameters_of_a_config_load_in_pyspiel():
    """A whole target given as a float (RulesConfig(target=100.0)) is an int parameter, which
    pyspiel.load_game takes (it refuses a float for an int parameter)."""
    for config in (RulesConfig(num_players=3, target=100.0, divisor=3), RulesConfig(num_players=2)):
        params = aos.game_parameters(config, episode="hand")
        game = load(**params)
        assert game.get_parameters()["target"] == (config.target or 0) and params["episode"] == "hand"


def test_a_game_cut_at_max_hands_with_win_rewards_ranks_the_whole_games_scores():
    """reward=win, episode=game, cut at the cap: the sides are ranked by the game's scores (as the
    docstring and the AEC env say for an unfinished game), not by the last hand's points (R25 values)."""

    checked = 0
    for seed in range(40):
        game = pyspiel.load_game(aos.GAME_NAME, {"players": 2, "target": 1000, "max_hands": 2, "reward": "win"})
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes())
                state.apply_action(int(rng.choice(outcomes, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        engine = state.engine
        assert state.hand_cap_reached()
        total, last = list(engine.scores), [s - h for s, h in zip(engine.scores, engine.hand_start_scores)]
        if np.sign(total[0] - total[1]) == np.sign(last[0] - last[1]):
            continue  # both rankings agree: this game cannot tell them apart
        expected = [float(np.sign(total[0] - total[1])), float(np.sign(total[1] - total[0]))]
        assert state.returns() == expected and state.rewards() == expected
        checked += 1
    assert checked > 0
