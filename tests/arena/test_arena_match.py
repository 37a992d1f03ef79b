"""Duplicate deals and seat rotation, records and replay, statistics, ratings."""

import json
import math
import os
import re
import subprocess
import sys

import pytest

from allfives_env.agents.random_agent import RandomAgent
from allfives_env.arena import (
    GameResult,
    MatchResult,
    check_agents,
    hand_deal,
    rate_agents,
    replay_record,
    rotations,
    run_match,
    wilson_interval,
)
from allfives_env.arena.ratings import ELO_MEAN, ELO_SCALE, _bradley_terry, _pairwise_results
from allfives_env.rules import RulesConfig, read_records


def test_wilson_interval_known_values():
    lo, hi = wilson_interval(5, 10)
    assert lo == pytest.approx(0.2366, abs=1e-4) and hi == pytest.approx(0.7634, abs=1e-4)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    lo, hi = wilson_interval(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == 1.0
    lo, hi = wilson_interval(81, 100)
    assert lo == pytest.approx(0.7222, abs=1e-4) and hi == pytest.approx(0.8749, abs=1e-4)
    assert wilson_interval(0, 0) == (0.0, 1.0)


@pytest.mark.parametrize("args, words", [
    ((5, 3), "successes=5 of n=3 is not allowed; allowed: 0 to n"),  # was math's "math domain error"
    ((-1, 3), "successes=-1 of n=3"),
    ((float("nan"), 3), "successes=nan of n=3"),  # was (0, 1), as if no games
    ((1, 0), "successes=1 of n=0"),  # was (0, 1)
    ((1, 3, -1.96), "z=-1.96 is not allowed; allowed: a positive number"),  # an interval upside down
    ((1, 3, 0.0), "z=0.0 is not allowed"),
])
def test_wilson_interval_refuses_what_is_not_a_proportion(args, words):
    with pytest.raises(ValueError, match=words):
        wilson_interval(*args)


def test_rotations():
    assert rotations(2) == [(0, 1), (1, 0)]
    assert rotations(3) == [(0, 1, 2), (1, 2, 0), (2, 0, 1)]


@pytest.mark.parametrize("num_players", [2, 3, 4])
def test_seat_rotation_really_rotates(num_players, tmp_path):
    config = RulesConfig(num_players=num_players, target=80)
    specs = ["greedy", "random", "heuristic"][: config.num_sides]
    path = tmp_path / "games.jsonl"
    match = run_match(config, specs, games=2 * config.num_sides, seed=3, records_path=str(path))
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(match.games) == len(records) == 2 * config.num_sides
    for deal in range(2):
        games = [r for r in records if r["deal"] == deal]
        assert len(games) == config.num_sides
        # the same first hand is dealt in every rotation ...
        assert len({json.dumps(r["hands"][0]["hands"]) for r in games}) == 1
        assert len({r["hands"][0]["leader"] for r in games}) == 1
        # ... and each agent sits at each seat once
        for seat in range(num_players):
            assert sorted(r["seats"][seat] for r in games) == sorted(specs)
        if num_players == 4:
            for r in games:
                assert r["seats"][0] == r["seats"][2] and r["seats"][1] == r["seats"][3]
    # later hands reuse the deal sequence too: hand k's tiles are the same in each rotation
    r0, r1 = [r for r in records if r["deal"] == 0][:2]
    for h0, h1 in zip(r0["hands"], r1["hands"]):
        assert h0["hands"] + [h0["boneyard"]] == h1["hands"] + [h1["boneyard"]]
    # every agent played every game once, as one side
    for stats in match.to_dict()["agents"]:
        assert stats["games"] == 2 * config.num_sides


@pytest.mark.parametrize("rules", [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4},
    {"num_players": 2, "first_leader": "heaviest_tile", "hand_scoring": "penalty"},
    {"num_players": 3, "divisor": 3, "hand_size": "five_each", "target": 120},
])
def test_replay_reproduces_recorded_scores(rules, tmp_path):
    config = RulesConfig(**rules)
    path = tmp_path / "games.jsonl"
    specs = ["heuristic", "random", "greedy"][: config.num_sides]
    run_match(config, specs, games=config.num_sides, seed=5, records_path=str(path))
    for line in path.read_text().splitlines():
        record = json.loads(line)
        game = replay_record(record)
        assert game.game_over
        assert list(game.scores) == record["scores"]
        assert list(game.winners) == record["winners"]
        assert len(record["hands"]) == game.hand_number + 1


def test_hand_deals_depend_only_on_seed_and_index():
    config = RulesConfig(num_players=2)
    assert hand_deal(config, [1, 2], 3) == hand_deal(config, [1, 2], 3)
    assert hand_deal(config, [1, 2], 3) != hand_deal(config, [1, 2], 4)


@pytest.mark.parametrize("rules, seed", [
    ({"num_players": 2, "target": 120, "hand_size": "seven_five"}, 0),
    ({"num_players": 3, "target": 120, "hand_size": "seven_five", "first_leader": "heaviest_tile"}, 2),
])
def test_each_hand_is_dealt_from_its_hand_deal_and_led_as_r19_says(rules, seed, tmp_path):
    config = RulesConfig(**rules)
    path = tmp_path / "games.jsonl"
    run_match(config, ["greedy", "random", "heuristic"][: config.num_sides], games=2 * config.num_sides, seed=seed,
              records_path=str(path))
    size, n = config.tiles_per_hand, config.num_players
    after_block = 0
    for record in read_records(path):
        r19_leaders = [None]  # whom R19 names for each hand: the seat that dominoed the hand before, else None

        def note_hand_end(hand, game, action):
            if game.hand_over:
                r19_leaders.append(game.next_leader)

        replay_record(record, note_hand_end)
        for k, hand in enumerate(record["hands"]):
            order, drawn_leader = hand_deal(config, [seed, record["deal"]], k)
            assert hand["hands"] == [sorted(order[i * size:(i + 1) * size]) for i in range(n)]
            assert hand["boneyard"] == order[n * size:]
            assert hand["leader"] == (drawn_leader if r19_leaders[k] is None else r19_leaders[k])
            after_block += k > 0 and r19_leaders[k] is None
    assert after_block > 0  # the drawn leader after a block was seen, not only the first hands'


@pytest.mark.parametrize("rules, scores", [
    ({"num_players": 2}, [[160, 255], [245, 260], [135, 260], [270, 135]]),
    ({"num_players": 3}, [[80, 205, 70], [145, 40, 200], [45, 200, 190], [200, 85, 45], [205, 80, 185],
                          [120, 200, 135]]),
    ({"num_players": 4}, [[105, 205], [220, 170], [130, 205], [205, 150]]),
    ({"num_players": 3, "first_leader": "heaviest_tile", "target": 120},
     [[85, 65, 120], [75, 20, 120], [35, 50, 125], [70, 125, 25], [125, 35, 65], [50, 125, 40]]),
])
def test_a_seed_gives_the_games_it_gave_before_the_arena_was_split(rules, scores):
    """Scores of the first two deals, recorded with the arena's former FixedDealRng dealing."""
    config = RulesConfig(**rules)
    match = run_match(config, ["greedy", "heuristic", "random"][: config.num_sides], games=2 * config.num_sides, seed=3)
    assert [list(g.scores) for g in match.games] == scores


@pytest.mark.parametrize("games", [6, 80])  # 80: 40 deals, chunks of 2 deals a worker plays with one agent each
def test_results_do_not_depend_on_workers(games):
    config = RulesConfig(num_players=2, target=100)
    one = run_match(config, ["heuristic", "random"], games=games, seed=2, workers=1)
    two = run_match(config, ["heuristic", "random"], games=games, seed=2, workers=2)
    assert one.to_dict()["agents"][0]["win_rate"] == two.to_dict()["agents"][0]["win_rate"]
    assert [g.scores for g in one.games] == [g.scores for g in two.games]


def test_games_round_up_to_whole_rotations_and_stats_add_up():
    match = run_match(RulesConfig(num_players=3, target=60), ["greedy", "random", "random"], games=4, seed=1)
    d = match.to_dict()
    assert d["games"] == 6 and d["deals"] == 2
    assert sum(a["wins"] for a in d["agents"]) == pytest.approx(6)
    assert sum(a["margin_per_game"] for a in d["agents"]) == pytest.approx(0, abs=1e-9)


def _game(side_agent, scores, winners):
    return GameResult(deal=0, rotation=0, side_agent=side_agent, scores=scores, winners=winners, hands=3,
                      seconds=0.0, act_seconds=(0.0,) * len(side_agent))


def test_a_drawn_game_is_half_a_win_to_each_of_its_winners():
    """R25: a game drawn between two players is half a win to each; a side's win goes to the agent
    that played that side."""
    match = MatchResult(RulesConfig(num_players=3), ["a", "b", "c"], seed=0)
    match.games += [_game((0, 1, 2), (200.0, 200.0, 120.0), (0, 1)), _game((2, 0, 1), (205.0, 80.0, 40.0), (0,))]
    assert [a["wins"] for a in match.to_dict()["agents"]] == [0.5, 0.5, 1.0]


def test_wrong_spec_count_is_an_error():
    with pytest.raises(ValueError, match="give 2"):
        run_match(RulesConfig(num_players=4), ["greedy", "random", "greedy"], games=2)


@pytest.mark.parametrize("options, words", [
    ({"games": 1.5}, "games=1.5 is not allowed; allowed: a whole number from 1 to 1,000,000"),  # was int()'s TypeError
    ({"games": "4"}, "games='4' is not allowed"),
    ({"games": True}, "games=True is not allowed"),  # was 1 game
    ({"workers": 0}, "workers=0 is not allowed; allowed: a whole number from 1 to 256"),  # was played inline
    ({"workers": -1}, "workers=-1 is not allowed"),
    ({"workers": 257}, "workers=257 is not allowed; allowed: a whole number from 1 to 256"),  # started 2,000 processes
    ({"config": {"num_players": 2}}, "config={'num_players': 2} is not allowed; allowed: a RulesConfig"),
    ({"specs": "greedy random"}, "specs='greedy random' is not allowed; allowed: a list of 2 agent specs"),
    ({"specs": ["greedy", lambda view, legal: legal[0]], "workers": 2}, "cannot be pickled (PicklingError)"),
])
def test_run_match_refuses_bad_arguments_in_one_line_before_any_game(options, words):
    """Each was a TypeError, an AttributeError, a PicklingError after the first games, or silently accepted."""
    arguments = {"config": RulesConfig(num_players=2), "specs": ["greedy", "random"], "games": 2, **options}
    with pytest.raises(ValueError) as refused:
        run_match(arguments.pop("config"), arguments.pop("specs"), **arguments)
    assert words in str(refused.value) and "\n" not in str(refused.value)


def test_agent_objects_that_pickle_play_with_workers():
    """As the trainer's evaluation passes its policy (eval_workers > 1): the same games as one worker."""
    config = RulesConfig(num_players=2, target=60)
    one = run_match(config, ["greedy", RandomAgent()], games=4, seed=1).to_dict()
    two = run_match(config, ["greedy", RandomAgent()], games=4, seed=1, workers=2).to_dict()
    for agents in (one["agents"], two["agents"]):
        for row in agents:
            row.pop("act_cpu_seconds_per_game")  # timing, not a result
            row.pop("spec")  # an object's repr names its address
    assert one["agents"] == two["agents"]


def test_rating_orders_a_clear_pool():
    rating = rate_agents(RulesConfig(num_players=2, target=100), ["random", "greedy", "heuristic"], games=10, seed=0)
    elo = {a["spec"]: a["elo"] for a in rating["agents"]}
    assert elo["greedy"] > elo["random"] and elo["heuristic"] > elo["random"]
    assert sum(elo.values()) / 3 == pytest.approx(1500)
    assert all(a["elo_sd"] > 0 for a in rating["agents"])


def test_a_rating_reports_the_games_each_match_played():
    """Asked for 4 games a match, 3 players play 6 (two deals, three rotations); the rating said 4."""
    rating = rate_agents(RulesConfig(num_players=3, target=30), ["random", "greedy", "heuristic"], games=4, seed=0)
    assert rating["games_per_match"] == 6
    assert rating["pairwise"]["games"][0][1] == 6  # one comparison per game for each pair at the table


def test_the_pairwise_results_of_a_game_count_equal_scores_as_half():
    """Elo's comparisons: each pair of sides of a game, the higher score a win, equal scores half each."""
    match = MatchResult(RulesConfig(num_players=3), ["a", "b", "c"], seed=0)
    match.games.append(_game((2, 0, 1), (200.0, 40.0, 40.0), (0,)))
    assert sorted(_pairwise_results((5, 6, 7), match)) == [(5, 6, 0.5), (7, 5, 1.0), (7, 6, 1.0)]


def test_elo_and_its_sd_for_an_even_pair_match_the_closed_form():
    """k wins and k losses between two agents: both at the mean, each sd sqrt(1 / (2 (prior + k)))
    in logistic units, times ELO_SCALE (the prior's precision (ELO_SCALE / prior sd)^2)."""
    k = 50
    elo, sd = _bradley_terry(2, [(0, 1, 1.0)] * k + [(0, 1, 0.0)] * k, prior_sd_elo=400.0)
    prior = (ELO_SCALE / 400.0) ** 2
    assert elo == pytest.approx([ELO_MEAN, ELO_MEAN])
    assert sd == pytest.approx([ELO_SCALE / math.sqrt(2 * (prior + k))] * 2)


def test_a_pool_with_a_spec_twice_is_refused_before_any_game(monkeypatch):
    """Two rows named ``random`` with different ratings could not be told apart."""
    import allfives_env.arena.ratings as ratings

    monkeypatch.setattr(ratings, "run_match", lambda *a, **k: pytest.fail("played a match"))
    with pytest.raises(ValueError, match="'random' is in the pool twice; give each agent once"):
        rate_agents(RulesConfig(num_players=2), ["random", "greedy", "random"], games=2)


def test_a_pool_member_that_cannot_sit_at_the_game_is_refused_before_any_match(monkeypatch):
    """A 2-player policy in a 3-player pool used to fail at its first match, after the matches before it."""
    import allfives_env.arena.ratings as ratings

    monkeypatch.setattr(ratings, "run_match", lambda *a, **k: pytest.fail("played a match"))
    with pytest.raises(ValueError, match=r"^'checkpoints/ppo_2p.pt' was trained for 2 players; this game has 3; "
                       r"allowed: a policy file for 3 players \(shipped: checkpoints/ppo_3p.pt\)$"):
        rate_agents(RulesConfig(num_players=3), ["random", "greedy", "heuristic", "ppo:checkpoints/ppo_2p.pt"],
                    games=3)


def test_a_match_seats_each_spec_before_any_game(monkeypatch):
    import allfives_env.arena.match as match

    monkeypatch.setattr(match, "_play_deals", lambda *a, **k: pytest.fail("played a game"))
    with pytest.raises(ValueError, match="was trained for 4 players; this game has 2"):
        run_match(RulesConfig(num_players=2), ["greedy", "ppo:checkpoints/ppo_4p.pt"], games=2, workers=2)
    check_agents(RulesConfig(num_players=4), ["greedy", "ppo:checkpoints/ppo_4p.pt", RandomAgent()])  # fits: passes


@pytest.mark.parametrize("seed", [-1, None, 2.5, True])
def test_a_match_seed_must_be_a_non_negative_integer(seed):
    with pytest.raises(ValueError, match=r"seed=.* is not allowed; allowed: a non-negative integer"):
        run_match(RulesConfig(num_players=2), ["random", "random"], games=2, seed=seed)


@pytest.mark.parametrize("rules, differ", [
    ({"divisor": 3}, "divisor=5; this game has divisor=3"),
    ({"hand_scoring": "penalty"}, "hand_scoring='bonus'; this game has hand_scoring='penalty'"),
    ({"hand_size": "five_each", "divisor": 3}, "hand_size='standard' (9 tiles a hand), divisor=5; this game has "
                                               "hand_size='five_each' (5 tiles a hand), divisor=3"),
])
def test_a_policy_plays_other_scoring_rules_only_when_asked(monkeypatch, rules, differ):
    """A policy file records its rules; under other scoring rules it loses strength silently (the 2-player
    file: 0.79 against greedy, 0.66 with divisor=3), so it is refused before any game unless any_rules=true.
    Another target only sets the game's length, so it plays."""
    import allfives_env.arena.match as match
    from allfives_env.agents.batched import make_batched_agent
    from allfives_env.vector import VectorAllFives

    config = RulesConfig(num_players=2, **rules)
    with monkeypatch.context() as patched:
        patched.setattr(match, "_play_deals", lambda *a, **k: pytest.fail("played a game"))
        with pytest.raises(ValueError, match=rf"^'.*ppo_2p.pt' was trained with {re.escape(differ)}; allowed: a "
                                             r"policy file trained for these rules, or ppo:PATH,any_rules=true "
                                             r"\(PPOAgent\(path, any_rules=True\)\) to play it anyway$"):
            run_match(config, ["ppo:checkpoints/ppo_2p.pt", "greedy"], games=2)
        with pytest.raises(ValueError, match=r"champion:any_rules=true \(or value=none, the search alone\)"):
            run_match(config, ["champion", "greedy"], games=2)
        with pytest.raises(ValueError, match=re.escape(differ)):
            make_batched_agent("ppo:checkpoints/ppo_2p.pt", VectorAllFives(2, num_players=2, **rules))
    played = run_match(RulesConfig(num_players=2, target=60, **rules),
                       ["ppo:checkpoints/ppo_2p.pt,any_rules=true", "champion:any_rules=true,samples=8"], games=2)
    assert len(played.games) == 2
    make_batched_agent("ppo:checkpoints/ppo_2p.pt,any_rules=true", VectorAllFives(2, num_players=2, **rules))
    run_match(RulesConfig(num_players=2, target=60, **rules), ["champion:value=none,samples=8", "greedy"], games=2)
    run_match(RulesConfig(num_players=2, target=60), ["ppo:checkpoints/ppo_2p.pt", "greedy"], games=2)  # a target


def test_the_same_tiles_a_hand_under_another_hand_size_name_plays():
    """With 4 players every hand size deals 5 tiles: the same game for a policy."""
    match = run_match(RulesConfig(num_players=4, hand_size="five_each", target=60),
                      ["ppo:checkpoints/ppo_4p.pt", "greedy"], games=2)
    assert len(match.games) == 2


def test_the_wrappers_and_training_seat_their_opponents_under_their_rules_at_once():
    from allfives_env.integrations import SingleAgentAllFives
    from training.evaluate import Evaluator

    with pytest.raises(ValueError, match=r"^opponents\[0\]: '.*ppo_2p.pt' was trained with divisor=5; this game has "
                                         r"divisor=3"):
        SingleAgentAllFives(num_players=2, opponents="ppo:checkpoints/ppo_2p.pt", divisor=3)
    with pytest.raises(ValueError, match="was trained with divisor=5; this game has divisor=3"):
        Evaluator(RulesConfig(num_players=2, divisor=3), "none", ["greedy", "ppo:checkpoints/ppo_2p.pt"], 10, 0)


def _game_of(side_agent, scores, winners, hands, deal=0):
    return GameResult(deal=deal, rotation=0, side_agent=side_agent, scores=scores, winners=winners, hands=hands,
                      seconds=0.0, act_seconds=(0.0,) * len(side_agent))


def test_points_per_hand_divide_by_the_hands_played_not_the_games():
    """Two 2-player games of 3 and 5 hands: agent a scores 250 + 100 over 8 hands.
    Catches (stats.py: ``self.points / max(self.hands, 1)`` -> ``self.points / g``)."""
    match = MatchResult(RulesConfig(num_players=2), ["a", "b"], seed=0)
    match.games += [_game_of((0, 1), (250.0, 120.0), (0,), hands=3), _game_of((1, 0), (250.0, 100.0), (0,), hands=5)]
    a, b = match.to_dict()["agents"]
    assert a["points_per_game"] == pytest.approx(175.0) and a["points_per_hand"] == pytest.approx(350 / 8)
    assert b["points_per_hand"] == pytest.approx(370 / 8) and a["hands_per_game"] == pytest.approx(4.0)


def test_a_four_player_match_has_two_rotations_one_per_partnership():
    """R2: 4 players are two sides, so the arena rotates the two agents over 2 sides, not 4 seats.
    Catches (stats.py to_dict: ``"rotations": num_sides`` -> ``num_players``)."""
    match = MatchResult(RulesConfig(num_players=4), ["a", "b"], seed=0)
    match.games += [_game_of((0, 1), (200.0, 90.0), (0,), hands=4), _game_of((1, 0), (60.0, 205.0), (1,), hands=4)]
    d = match.to_dict()
    assert d["rotations"] == 2 and d["players"] == 4 and d["deals"] == 1
    assert [a["wins"] for a in d["agents"]] == [2.0, 0.0]


def test_each_agent_is_charged_the_cpu_time_of_the_side_it_played():
    """``act_seconds[s]`` is side s's time in act(); rotated games charge it to the agent at that side.
    Catches (stats.py AgentStats.add: ``game.act_seconds[side]`` -> ``game.act_seconds[0]``)."""
    match = MatchResult(RulesConfig(num_players=2), ["a", "b"], seed=0)
    match.games += [GameResult(deal=0, rotation=0, side_agent=(0, 1), scores=(250.0, 0.0), winners=(0,), hands=2,
                               seconds=0.0, act_seconds=(1.0, 3.0)),
                    GameResult(deal=0, rotation=1, side_agent=(1, 0), scores=(0.0, 250.0), winners=(1,), hands=2,
                               seconds=0.0, act_seconds=(5.0, 2.0))]
    a, b = match.to_dict()["agents"]
    assert a["act_cpu_seconds_per_game"] == pytest.approx((1.0 + 2.0) / 2)
    assert b["act_cpu_seconds_per_game"] == pytest.approx((3.0 + 5.0) / 2)


def test_a_match_past_the_most_games_is_refused_before_its_schedule_is_built():
    """The schedule is built in memory first: 10**12 games were killed for memory (24 GB) instead."""
    from allfives_env.arena.schedule import MAX_GAMES

    with pytest.raises(ValueError, match=f"games={MAX_GAMES + 1} is not allowed; allowed: a whole number from 1 to "
                                         f"{MAX_GAMES:,}"):
        run_match(RulesConfig(num_players=2), ["heuristic", "greedy"], games=MAX_GAMES + 1)


@pytest.mark.parametrize("z", [float("inf"), float("nan")])
def test_wilson_interval_refuses_a_z_that_is_not_finite(z):
    """Catches an infinite (or nan) z passing the check and giving a nan interval."""
    with pytest.raises(ValueError, match=f"z={z!r} is not allowed; allowed: a positive number"):
        wilson_interval(1, 3, z)


def test_wilson_interval_of_no_games_is_everything_for_a_count_at_or_below_zero():
    """Catches no successes of n <= 0 games refused instead of the know-nothing interval (0, 1)."""
    assert wilson_interval(0, 0) == (0.0, 1.0)
    assert wilson_interval(0, -1) == (0.0, 1.0)
    assert all(math.isfinite(x) for x in wilson_interval(0.5, 1))


def test_compiling_a_shipped_agents_kernels_is_not_counted_as_its_play(tmp_path):
    """In a fresh checkout numba compiles the search's kernels at its first decision (seconds): that was
    reported as its CPU per game (6.7 s where a game takes 0.01 s); the match warms each shipped agent up
    first. An empty numba cache stands for the fresh checkout."""
    code = ("from allfives_env.arena import run_match; from allfives_env.rules import RulesConfig; "
            "m = run_match(RulesConfig(num_players=2), ['search:engine=compiled', 'greedy'], games=2, seed=0); "
            "print(m.to_dict()['agents'][0]['act_cpu_seconds_per_game'])")
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert float(done.stdout.split()[-1]) < 1.0
