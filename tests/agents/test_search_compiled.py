"""The compiled search (allfives_env/agents/search_compiled.py) against the Python agents, position by position.

A Python :class:`Game` and a one-game :class:`VectorAllFives` get the same deal
and the same (random) moves; at every decision the compiled legal placements,
greedy move, heuristic prior and full-information rollouts must equal the
Python ones (greedy.py, heuristic.py, SearchAgent._rollout), and the sampled
hidden deals must be consistent with what the seat knows.
"""

import numpy as np
import pytest
from support import paired_positions, placements

from allfives_env.agents import search_compiled as S
from allfives_env.agents.greedy import greedy_action
from allfives_env.agents.heuristic import HeuristicAgent, score_placements
from allfives_env.agents.inference import greedy_exclusions
from allfives_env.agents.search import SearchAgent
from allfives_env.compiled.rules import apply_action
from allfives_env.compiled.state import (
    BONE_POS,
    C_DIVISOR,
    F_TARGET,
    GAME_OVER,
    HAND_OVER,
    NEXT_LEADER,
    NUM_FIELDS,
    ORDER,
    PLAYED_MASK,
    TO_MOVE,
    WINNERS,
)
from allfives_env.rules.actions import DRAW
from allfives_env.rules.game import Game
from allfives_env.rules.tiles import SUIT_TILES
from allfives_env.rules.view import player_view
from allfives_env.vector import VectorAllFives

CASES = [dict(num_players=2), dict(num_players=3), dict(num_players=4),
         dict(num_players=4, divisor=3, target=75), dict(num_players=3, hand_size="five_each", target=60)]


def venv_values(searcher, venv, b):
    """The searcher's values for game ``b`` of ``venv``, read from its compiled arrays."""
    state = venv.compiled_state()
    return searcher.values(state.st, state.hands, state.scores, b, state.cfg, state.fcfg)


@pytest.mark.parametrize("options", CASES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_legal_greedy_heuristic_and_rollouts_equal_the_python_agents(options):
    searcher = S.Searcher(3)
    python_search = SearchAgent()
    heuristic = HeuristicAgent()
    checked = 0
    for game, venv in paired_positions(options, seed=len(str(options)), hands_to_play=6):
        st, hands, scores, cfg, fcfg = venv._st, venv._hands, venv._scores, venv._cfg, venv._fcfg
        legal = placements(game)
        n = S.legal_placements(st, 0, hands, searcher.legal)
        assert list(searcher.legal[:n]) == legal
        assert S.greedy_move(st, 0, hands, cfg[C_DIVISOR]) == greedy_action(game, game.legal_actions())
        if len(legal) < 2:
            continue
        view = player_view(game, game.to_move)
        expected = score_placements(view, legal, heuristic)
        S.heuristic_values(st, 0, hands, scores, cfg, fcfg[F_TARGET], searcher.legal, n, S.HEURISTIC_WEIGHTS,
                           searcher.wst, searcher.whands, searcher.wscores, 2, searcher.replies, searcher.prior)
        assert searcher.prior[:n] == pytest.approx([expected[a] for a in legal], abs=1e-9)
        side = game.config.side_of(game.to_move)
        for action in legal:
            g = game.clone()
            g.step(action)
            want = python_search._rollout(g, side, list(game.scores))
            S.copy_game(st, hands, scores, 0, searcher.wst, searcher.whands, searcher.wscores, S.TRIAL)
            apply_action(searcher.wst, S.TRIAL, searcher.whands, searcher.wscores, searcher.wgains, cfg,
                           fcfg[F_TARGET], action)
            got = S.rollout_value(searcher.wst, S.TRIAL, searcher.whands, searcher.wscores, searcher.wgains, cfg,
                                  fcfg[F_TARGET], side, np.array(game.scores, np.float64), 100.0)
            assert got == pytest.approx(want, abs=1e-9)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("options", CASES[:4], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_heuristic_rollouts_equal_the_python_search_with_rollout_heuristic(options):
    """``rollout=heuristic``: every seat of a full-information rollout plays the heuristic agent from its
    own view; the compiled rollout is the Python one, move by move, so its value is the same."""
    searcher = S.Searcher(3, rollout="heuristic")
    python_search = SearchAgent(rollout="heuristic")
    checked = 0
    for game, venv in paired_positions(options, seed=7 + len(str(options)), hands_to_play=3):
        st, hands, scores, cfg, fcfg = venv._st, venv._hands, venv._scores, venv._cfg, venv._fcfg
        legal = placements(game)
        if len(legal) < 2:
            continue
        side = game.config.side_of(game.to_move)
        for action in legal:
            g = game.clone()
            g.step(action)
            want = python_search._rollout(g, side, list(game.scores))
            S.copy_game(st, hands, scores, 0, searcher.wst, searcher.whands, searcher.wscores, S.TRIAL)
            apply_action(searcher.wst, S.TRIAL, searcher.whands, searcher.wscores, searcher.wgains, cfg,
                         fcfg[F_TARGET], action)
            got = S.heuristic_rollout_value(
                searcher.wst, S.TRIAL, searcher.whands, searcher.wscores, searcher.wgains, cfg, fcfg[F_TARGET], side,
                np.array(game.scores, np.float64), 100.0, S.HEURISTIC_WEIGHTS, searcher.rlegal, searcher.rvalues,
                searcher.rst, searcher.rhands, searcher.rscores, searcher.rreplies)
            assert got == pytest.approx(want, abs=1e-9)
            checked += 1
        if checked > 60:
            break
    assert checked > 20


@pytest.mark.parametrize("options", CASES[:4], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_sampled_worlds_keep_what_the_seat_knows(options):
    searcher = S.Searcher(3)
    rng = np.array([12345], np.uint64)
    checked = 0
    for game, venv in paired_positions(options, seed=7, hands_to_play=4):
        st, hands = venv._st, venv._hands
        seat = int(st[0, TO_MOVE])
        n = game.num_players
        view = player_view(game, seat)
        for _ in range(3):
            S.copy_game(st, hands, venv._scores, 0, searcher.wst, searcher.whands, searcher.wscores, S.WORLD)
            how = S.deal_hidden(st, hands, 0, seat, n, searcher.wst, searcher.whands, S.WORLD, rng, 0,
                                searcher.tiles, 50, searcher.no_forbid)
            assert how in (0, 1)
            w_hands = [int(h) for h in searcher.whands[S.WORLD, :n]]
            assert w_hands[seat] == game.hands[seat]
            bone_pos = int(st[0, BONE_POS])
            boneyard = [int(t) for t in searcher.wst[S.WORLD, ORDER + bone_pos:ORDER + 28]]
            union = 0
            for s in range(n):
                assert w_hands[s].bit_count() == game.hands[s].bit_count()  # every hand size kept
                if s != seat:  # (the mover may hold a just-drawn tile of a suit it lacked)
                    for suit in range(7):
                        if view.lacks[s] >> suit & 1:
                            assert w_hands[s] & SUIT_TILES[suit] == 0  # no tile of a lacking suit
                    assert w_hands[s] & ~view.unseen == 0  # only unseen tiles are redrawn
                assert union & w_hands[s] == 0
                union |= w_hands[s]
            for t in boneyard:
                assert union >> t & 1 == 0
                union |= 1 << t
            assert union == (view.unseen | game.hands[seat])  # hands + boneyard = unseen + own
            # the played tiles and the layout are untouched
            assert list(searcher.wst[S.WORLD, :ORDER]) == list(st[0, :ORDER])
            assert list(searcher.whands[S.WORLD, PLAYED_MASK:]) == list(hands[0, PLAYED_MASK:])
            checked += 1
    assert checked > 30


def test_sampled_worlds_are_uniform_over_the_consistent_deals():
    """2 players, 3 unseen tiles, the other seat holds 1 of them: each tile 1/3 of the time."""
    venv = VectorAllFives(num_envs=1, num_players=2, hand_size="five_each")
    venv.reset(seed=0)
    order = list(range(28))
    venv.set_position([0], [[order[:5], order[5:10]]], [order[10:]], [0], [[0.0, 0.0]])
    st, hands = venv._st, venv._hands
    st[0, BONE_POS] = 28 - 2  # pretend: 2 tiles left in the boneyard ...
    hands[0, 1] = 1 << 5  # ... the opponent holds one tile, and tiles 6..25 were played
    played = 0
    for t in range(6, 26):
        played |= 1 << t
    hands[0, PLAYED_MASK + 1] = played
    searcher = S.Searcher(2)
    rng = np.array([99], np.uint64)
    counts = np.zeros(28)
    for _ in range(3000):
        S.copy_game(st, hands, venv._scores, 0, searcher.wst, searcher.whands, searcher.wscores, S.WORLD)
        S.deal_hidden(st, hands, 0, 0, 2, searcher.wst, searcher.whands, S.WORLD, rng, 0, searcher.tiles, 50,
                      searcher.no_forbid)
        counts[int(searcher.whands[S.WORLD, 1]).bit_length() - 1] += 1
    assert set(np.flatnonzero(counts)) == {5, 26, 27}
    assert counts[[5, 26, 27]] / 3000 == pytest.approx([1 / 3] * 3, abs=0.04)


def test_the_compiled_search_ranks_like_the_python_search_with_many_samples():
    """Same definition of values: with many worlds both estimate the same expectation (the Python
    estimate from 1500 worlds varies by about +-1.5 points between seeds here)."""
    from allfives_env.agents.search import SearchAgent

    for game, venv in paired_positions(dict(num_players=2), seed=3, hands_to_play=3):
        legal = placements(game)
        if len(legal) >= 3 and game.bone_pos < len(game.boneyard):
            break
    searcher = S.Searcher(2, samples=20000, seed=1)
    _, compiled = venv_values(searcher, venv, 0)
    agent = SearchAgent(samples=1500)
    agent.reset(game.to_move, game.config, np.random.default_rng(0))
    python = agent.action_values(player_view(game, game.to_move), legal)
    assert np.asarray(compiled) == pytest.approx(python, abs=3.0)
    assert np.ptp(python) > 30  # the actions differ by far more than the tolerance


@pytest.mark.parametrize("options", CASES[:3], ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_load_view_copies_exactly_the_public_state(options):
    """A view loaded into arrays equals the batched env's own state in everything public, and the
    compiled search reads nothing else (redrawn hidden tiles give the same values as the true arrays)."""
    st = np.zeros((1, NUM_FIELDS), np.int8)
    hands = np.zeros((1, 8), np.int64)
    checked = 0
    for game, venv in paired_positions(options, seed=11, hands_to_play=3):
        seat = game.to_move
        view = player_view(game, seat)
        scores = np.zeros((1, game.num_sides))
        S.load_view(view, st, hands, scores)
        public = [c for c in range(ORDER) if c not in (NEXT_LEADER, WINNERS, GAME_OVER, HAND_OVER)]
        assert list(st[0, public]) == list(venv._st[0, public])
        assert list(hands[0, PLAYED_MASK:]) == list(venv._hands[0, PLAYED_MASK:])
        assert hands[0, seat] == venv._hands[0, seat]
        assert [int(h).bit_count() for h in hands[0, :4]] == [int(h).bit_count() for h in venv._hands[0, :4]]
        assert list(scores[0]) == list(venv._scores[0])
        if len(placements(game)) >= 2 and checked < 10:
            a = S.Searcher(game.num_sides, samples=20, seed=5)
            b = S.Searcher(game.num_sides, samples=20, seed=5)
            assert np.array_equal(a.values(st, hands, scores, 0, venv._cfg, venv._fcfg)[1],
                                  venv_values(b, venv, 0)[1])  # same worlds from the view as from the truth
            checked += 1
    assert checked == 10


def test_search_agent_engine_option():
    from allfives_env.agents import make_agent
    from allfives_env.arena import run_match
    from allfives_env.rules.config import RulesConfig

    match = run_match(RulesConfig(num_players=4), ["search:samples=8,engine=compiled", "greedy"], 4, seed=1)
    assert match.to_dict()["agents"][0]["games"] == 4
    with pytest.raises(ValueError, match="engine='fast' is not allowed"):
        make_agent("search:engine=fast")
    with pytest.raises(ValueError, match="depth and time_ms"):
        make_agent("search:engine=compiled,depth=3")


def _reference_exclusions(num_players, seed):
    """Greedy games (every seat greedy); at the end of each hand's random cut-off, the tiles each
    opponent of seat 0 could not hold by brute force: at each of its placements (not one forced
    by a draw, R13), the unplaced tiles that, added to its hand, greedy would have played instead;
    cleared by its draws; then limited to what seat 0 has not seen. Yields (view, reference, hands)."""
    rng = np.random.default_rng(seed)
    config = VectorAllFives(num_envs=1, num_players=num_players).config
    for _ in range(12):
        game = Game(config)
        game.start_game(rng)
        stop = int(rng.integers(2, 20))
        reference = [0] * num_players
        after_draw = set()
        for _ in range(stop):
            if game.hand_over:
                break
            seat = game.to_move
            legal = game.legal_actions()
            action = greedy_action(game, legal)
            if action == DRAW:
                reference[seat] = 0
                after_draw.add(seat)
            elif action < DRAW and seat not in after_draw and game.config.side_of(seat) != game.config.side_of(0):
                placed = sum(1 << t for t, who in enumerate(game.played_by) if who >= 0)
                for t in range(28):
                    if (placed >> t) & 1 or t == action >> 2:
                        continue
                    g = game.clone()
                    g.hands[seat] |= 1 << t
                    if greedy_action(g, g.legal_actions()) >> 2 == t:
                        reference[seat] |= 1 << t
            if action != DRAW:  # a placement or a pass ends what the draw forced (R13)
                after_draw.discard(seat)
            game.step(action)
        view = player_view(game, 0)
        yield view, [r & view.unseen for r in reference], list(game.hands)


@pytest.mark.parametrize("num_players", [2, 4])
def test_greedy_exclusions_equal_a_brute_force_replay_and_hold_against_greedy(num_players):
    st = np.zeros((1, NUM_FIELDS), np.int8)
    forbid = np.zeros(4, np.int64)
    found = 0
    for view, reference, true_hands in _reference_exclusions(num_players, seed=num_players):
        events = np.array([(e[0], e[1]) for e in view.events], np.int64).reshape(-1, 2)
        greedy_exclusions(events[:, 0], events[:, 1], len(events), 0, num_players, view.divisor, st, 0, forbid)
        got = [int(f) & view.unseen for f in forbid[:num_players]]
        assert got == reference
        for seat in range(num_players):
            assert got[seat] & true_hands[seat] == 0  # greedy players never hold what their play ruled out
        found += sum(bin(f).count("1") for f in got)
    assert found > 20


def test_infer_greedy_worlds_keep_the_exclusions():
    """Worlds drawn with exclusions never give an opponent an excluded tile (while a consistent deal
    exists), and the option reaches the agent."""
    from allfives_env.agents import make_agent

    checked = 0
    for view, reference, true_hands in _reference_exclusions(4, seed=9):
        if not any(reference):
            continue
        st = np.zeros((1, NUM_FIELDS), np.int8)
        hands = np.zeros((1, 8), np.int64)
        scores = np.zeros((1, 2))
        S.load_view(view, st, hands, scores)
        forbid = np.array(reference + [0] * (4 - len(reference)), np.int64)
        searcher = S.Searcher(2, seed=checked)
        rng = np.array([77 + checked], np.uint64)
        for _ in range(20):
            S.draw_world(st, hands, scores, 0, 0, 4, searcher.wst, searcher.whands, searcher.wscores, S.WORLD, rng,
                         0, searcher.tiles, 50, forbid, searcher.no_forbid)
            for seat in range(1, 4):
                assert int(searcher.whands[S.WORLD, seat]) & int(forbid[seat]) == 0
        checked += 1
    assert checked >= 5
    assert make_agent("search:infer=greedy").engine == "compiled"
    with pytest.raises(ValueError, match="infer='maybe' is not allowed"):
        make_agent("search:infer=maybe")


def test_the_compiled_search_adds_the_heuristic_prior_capped_as_the_python_search_does():
    """action_values = rollout mean + prior_weight * min(heuristic value, 1e3), as SearchAgent's Python engine:
    with the same seed the worlds are the same, so the prior is the whole difference between prior_weight 1
    and 0, here in a position where leading [4|6] wins the game (its heuristic value is 1e6 + points)."""
    from allfives_env.rules import Game, RulesConfig
    from allfives_env.rules.tiles import tile_index as T

    hands = [[T(3, 6), T(4, 6), T(0, 0), T(0, 1), T(0, 2), T(1, 1), T(1, 2), T(2, 2), T(0, 4)],
             [T(6, 6), T(1, 3), T(1, 4), T(1, 5), T(2, 3), T(2, 4), T(2, 5), T(2, 6), T(0, 3)]]
    rest = sorted(set(range(28)) - set(hands[0]) - set(hands[1]))
    config = RulesConfig(num_players=2)
    game = Game(config)
    game.start_game(np.random.default_rng(0), hands=hands, boneyard=rest, leader=0, scores=[240, 0])
    view = player_view(game, 0)
    legal = list(view.legal_actions)
    values = {}
    for weight in (0.0, 1.0):
        agent = SearchAgent(samples=4, engine="compiled", prior_weight=weight)
        agent.reset(0, config, np.random.default_rng(7))
        values[weight] = np.array(agent.action_values(view, legal))
    prior = score_placements(view, legal, HeuristicAgent())
    assert max(prior.values()) > 1e3
    assert values[1.0] - values[0.0] == pytest.approx([min(prior[a], 1e3) for a in legal], abs=1e-6)
