"""Hand reading (allfives_env/agents/hand_reading.py): the replayed positions and the model's likelihood
equal the rules engine and the Python heuristic agent, the resampling keeps the weights' shares, and
against players who do play like the model the weighted worlds hold more of the true tiles."""

import math
from pathlib import Path

import numpy as np
import pytest
from support import plus_look_ahead

from allfives_env.agents import make_agent
from allfives_env.agents.champion import CHAMPION_PRIOR_WEIGHT, POINTS_PER_RETURN, LeafValues
from allfives_env.agents.hand_reading import (
    READ_FLOOR,
    READ_TEMPERATURE,
    HandReader,
    placement_log_likelihood,
    resample,
)
from allfives_env.agents.heuristic import HeuristicAgent, score_placements
from allfives_env.agents.search_compiled import HEURISTIC_WEIGHTS, Searcher, heuristic_values, world_from_bank
from allfives_env.compiled.rules import legal_placements
from allfives_env.compiled.state import BONE_POS, F_TARGET, NUM_FIELDS, ORDER, kernel_config
from allfives_env.env.encoders import default_layout
from allfives_env.rules.actions import DRAW, PASS
from allfives_env.rules.config import RulesConfig
from allfives_env.rules.game import Game
from allfives_env.rules.view import player_view
from allfives_env.vector.batched import make_rng_state

HEURISTIC = HeuristicAgent()
ROOT = Path(__file__).resolve().parents[2]
POLICY = {3: str(ROOT / "checkpoints/champion_value_3p.pt"), 4: str(ROOT / "checkpoints/champion_value_4p.pt")}


def _kernel(config):
    cfg, fcfg, _ = kernel_config(config, default_layout(config.num_players), "game", "points", False)
    return cfg, fcfg[F_TARGET]


def _played_hands(num_players, games, seed, chooser):
    """Yield ``(game, history)`` before every decision of seeded games: ``history[i]`` is the game as it
    was before the hand's ``i``-th event. ``chooser(game, legal, rng)`` picks each move."""
    config = RulesConfig(num_players=num_players)
    rng = np.random.default_rng(seed)
    game = Game(config)
    for _ in range(games):
        game.start_game(rng)
        history = []
        while not game.game_over:
            if game.hand_over:
                game.start_next_hand(rng)
                history = []
                continue
            assert len(history) == len(game.events)
            yield game, history
            legal = game.legal_actions()
            history.append(game.clone())
            game.step(chooser(game, legal, rng))


def _random_or_heuristic(game, legal, rng):
    if len(legal) > 1 and rng.random() < 0.5:
        return HEURISTIC.act(player_view(game, game.to_move), legal)
    return int(legal[rng.integers(len(legal))])


def _informative(events, seat):
    """The events a reader of ``seat`` reads: another seat's placement, not the drawn tile R13 forces,
    with no draw of that seat after it (the docstring's rule, written from the events alone)."""
    out = []
    for i, (s, action, *_rest) in enumerate(events):
        if s == seat or action in (DRAW, PASS):
            continue
        forced = i > 0 and events[i - 1][0] == s and events[i - 1][1] == DRAW
        drew_later = any(e[0] == s and e[1] == DRAW for e in events[i + 1:])
        if not forced and not drew_later:
            out.append(i)
    return out


def _python_log_likelihood(history, events, indices, hands_then):
    """The module docstring's model, from the Python heuristic agent's values at the true positions."""
    total = 0.0
    for i, hand in zip(indices, hands_then):
        past = history[i]
        mover, chosen = events[i][0], events[i][1]
        assert past.hands[mover] == hand
        legal = [a for a in past.legal_actions() if a < DRAW]
        if len(legal) <= 1:
            continue
        values = score_placements(player_view(past, mover), legal, HEURISTIC)
        z = [min(values[a], 1e3) / READ_TEMPERATURE for a in legal]
        top = max(z)
        p = math.exp(z[legal.index(chosen)] - top) / sum(math.exp(v - top) for v in z)
        total += math.log((1 - READ_FLOOR) * p + READ_FLOOR / len(legal))
    return total


@pytest.mark.parametrize("players", [2, 3, 4])
def test_read_positions_equal_the_rules_engine(players):
    """Before each read placement: the same legal placements and heuristic values as the rules engine's
    position then (layout, scores, lacks, hand sizes, boneyard), the hand then = the hand now plus the
    tiles placed since, and the true hands' likelihood is the Python model's."""
    config = RulesConfig(num_players=players)
    cfg, target = _kernel(config)
    reader = HandReader(config.num_sides, seed=players, candidates=4)
    legal, values = np.zeros(DRAW, np.int64), np.zeros(DRAW)
    true = np.zeros((1, 8), np.int64)
    checked = placements_checked = 0
    for step, (game, history) in enumerate(_played_hands(players, 3, seed=10 + players, chooser=_random_or_heuristic)):
        if step % 3:
            continue
        seat = game.to_move
        view = player_view(game, seat)
        reader.read(view, cfg, target)
        indices = _informative(game.events, seat)
        assert reader.count == len(indices)
        hands_then = []
        for k, i in enumerate(indices):
            mover = game.events[i][0]
            assert (reader.mover[k], reader.chosen[k]) == (mover, game.events[i][1])
            hand_then = game.hands[mover] | int(reader.later[k])
            hands_then.append(hand_then)
            past = history[i]
            reader.ehands[k, mover] = hand_then
            n = legal_placements(reader.est, k, reader.ehands, legal)
            want = [a for a in past.legal_actions() if a < DRAW]
            assert legal[:n].tolist() == want
            heuristic_values(reader.est, k, reader.ehands, reader.escores, cfg, target, legal, n, HEURISTIC_WEIGHTS,
                             reader.lst, reader.lhands, reader.lscores, 0, reader.replies, values)
            python = score_placements(player_view(past, mover), want, HEURISTIC)
            assert values[:n] == pytest.approx([python[a] for a in want], abs=1e-9)
            placements_checked += 1
        for s in range(players):
            true[0, s] = game.hands[s]
        got = placement_log_likelihood(true, 0, reader.count, reader.est, reader.ehands, reader.escores, reader.mover,
                                       reader.chosen, reader.later, cfg, target, READ_TEMPERATURE, READ_FLOOR, legal,
                                       values, reader.lst, reader.lhands, reader.lscores, reader.replies)
        assert got == pytest.approx(_python_log_likelihood(history, game.events, indices, hands_then), abs=1e-9)
        checked += 1
    assert checked > 30 and placements_checked > 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_partner_alone_is_read_with_partner_only(players):
    """``partner_only``: the rows are the informative placements of the partner (4 players; seats
    ``seat`` and ``seat + 2`` are one side), in order; with 2 or 3 players none, so every world weighs
    the same (R2: partnerships only with 4)."""
    config = RulesConfig(num_players=players)
    cfg, target = _kernel(config)
    reader = HandReader(config.num_sides, seed=players, candidates=8, partner_only=True)
    checked = read = 0
    for step, (game, _) in enumerate(_played_hands(players, 2, seed=30 + players, chooser=_random_or_heuristic)):
        if step % 2:
            continue
        seat = game.to_move
        reader.read(player_view(game, seat), cfg, target)
        want = [i for i in _informative(game.events, seat) if players == 4 and game.events[i][0] == (seat + 2) % 4]
        assert reader.count == len(want)
        assert [(int(reader.mover[k]), int(reader.chosen[k])) for k in range(reader.count)] == \
               [(game.events[i][0], game.events[i][1]) for i in want]
        if players < 4:
            assert np.all(reader.weights == 1.0)
        checked += 1
        read += reader.count
    assert checked > 20 and (read > 20 if players == 4 else read == 0)


def test_resampling_keeps_each_worlds_share():
    rng = np.random.default_rng(0)
    state = make_rng_state(1, 1)
    for _ in range(50):
        weights = rng.random(int(rng.integers(1, 40))) ** 4
        k = int(rng.integers(1, 200))
        rows = np.zeros(k, np.int64)
        resample(weights, k, state, rows)
        counts = np.bincount(rows, minlength=len(weights))
        share = k * weights / weights.sum()
        assert np.all(counts >= np.floor(share) - 1e-9) and np.all(counts <= np.ceil(share) + 1e-9)
        assert np.all(np.diff(rows) >= 0)


def test_a_world_from_the_bank_keeps_its_hands_and_reshuffles_the_boneyard():
    config = RulesConfig(num_players=2)
    cfg, target = _kernel(config)
    game = Game(config)
    game.start_game(np.random.default_rng(3))
    reader = HandReader(config.num_sides, seed=0, candidates=1)
    reader.read(player_view(game, game.to_move), cfg, target)
    rows = np.zeros((1, NUM_FIELDS), np.int8), np.zeros((1, 8), np.int64), np.zeros((1, 1 + 1))
    state = make_rng_state(5, 1)
    lo = reader.bst[0, BONE_POS]
    orders = set()
    for _ in range(20):
        world_from_bank(reader.bst, reader.bhands, reader.bscores, 0, *rows, 0, state, 0)
        assert rows[1][0].tolist() == reader.bhands[0].tolist()
        assert rows[0][0, :ORDER + lo].tolist() == reader.bst[0, :ORDER + lo].tolist()
        assert sorted(rows[0][0, ORDER + lo:ORDER + 28]) == sorted(reader.bst[0, ORDER + lo:ORDER + 28])
        orders.add(tuple(rows[0][0, ORDER + lo:ORDER + 28]))
    assert len(orders) > 10


@pytest.mark.parametrize("players", [3, 4])
def test_reading_heuristic_players_puts_weight_on_their_true_tiles(players):
    """Where the other seats do play the heuristic agent, the weighted worlds share more tiles with the
    true hands than the uniformly drawn ones do (no reading: equal by construction)."""
    config = RulesConfig(num_players=players)
    cfg, target = _kernel(config)
    reader = HandReader(config.num_sides, seed=1, candidates=128)
    gains = []
    for step, (game, _) in enumerate(_played_hands(players, 4, seed=20 + players,
                                                   chooser=lambda g, legal, rng: HEURISTIC.act(
                                                       player_view(g, g.to_move), legal))):
        seat = game.to_move
        if step % 2 or seat != 0 or len(game.events) < players:
            continue
        reader.read(player_view(game, seat), cfg, target)
        shared = sum(np.array([bin(int(h) & game.hands[s]).count("1") for h in reader.bhands[:, s]])
                     for s in range(players) if s != seat)
        weights = reader.weights / reader.weights.sum()
        gains.append(float(weights @ shared - shared.mean()))
    assert len(gains) > 30, len(gains)
    # measured: 3 players +0.47 tiles, 86% of the decisions ahead; 4 players +0.23, 82%
    assert np.mean(gains) > 0.15 and np.mean(np.array(gains) > 0) > 0.7


@pytest.mark.parametrize("players, read", [(3, "heuristic"), (4, "heuristic"), (4, "partner")])
def test_champion_reads_hands_into_both_of_its_estimates(players, read):
    """``read=heuristic`` (every other seat) and ``read=partner``: the search and the look-ahead play out
    worlds drawn from the reader's weighted bank, in the champion's stream order (search, look-ahead,
    reader)."""
    config = RulesConfig(num_players=players)
    champion = make_agent(f"champion:samples=6,worlds=3,value={POLICY[players]},read={read}")
    search = make_agent("search:engine=compiled,rollout=heuristic,samples=6,"
                        f"prior_weight={CHAMPION_PRIOR_WEIGHT[players]}")
    leaf = LeafValues(POLICY[players], worlds=3)
    champion.reset(0, config, np.random.default_rng(4))
    rng = np.random.default_rng(4)
    search.reset(0, config, rng)
    leaf.reset(config, rng)
    reader = HandReader(config.num_sides, int(rng.integers(2 ** 62)), partner_only=read == "partner")
    cfg, target = _kernel(config)
    compared = 0
    for game, _ in _played_hands(players, 1, seed=players, chooser=_random_or_heuristic):
        legal = game.legal_actions()
        if len(legal) < 2 or legal[0] >= DRAW or not game.events:
            continue
        view = player_view(game, game.to_move)
        reader.read(view, cfg, target)
        want = plus_look_ahead(search._compiled.action_values(view, legal, reader.bank(6)), leaf.values(view, reader),
                               legal, POINTS_PER_RETURN)
        assert champion.action_values(view, legal) == pytest.approx(want, abs=1e-9)
        compared += 1
        if compared == 8:
            break
    assert compared == 8
    assert isinstance(search._compiled.searcher, Searcher)


def test_resampling_draws_its_offset_from_the_generator():
    """Systematic resampling draws its offset from the stream: one draw from weights 1 and 9 takes the first
    world about a tenth of the time, not always."""
    weights = np.array([1.0, 9.0])
    first = 0
    for seed in range(200):
        rows = np.zeros(1, np.int64)
        resample(weights, 1, make_rng_state(seed, 1), rows)
        first += int(rows[0] == 0)
    assert 5 <= first <= 45  # expected 20 (a 10% share)
