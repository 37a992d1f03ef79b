"""α-Rank and Nash averaging of a round robin's win rates (allfives_env.arena.population) and
`allfives rate --method`: cycles share the mass where Elo sees equal agents, dominated agents get
none, transitive pools rank like Elo."""

import json
import sys

import numpy as np
import pytest
from support import run_cli

import allfives_env.arena.match
from allfives_env.arena import format_alpharank, format_nash, format_ratings, rate_agents
from allfives_env.arena.population import alpha_rank, max_entropy_nash, nash_averaging, win_rate_matrix
from allfives_env.arena.ratings import _bradley_terry
from allfives_env.rules import RulesConfig

#: rock, paper, scissors: the row agent's win rate against the column agent
RPS = np.array([[0.5, 0.0, 1.0],
                [1.0, 0.5, 0.0],
                [0.0, 1.0, 0.5]])


def win_rates(p_upper):
    """A complete win-rate matrix from its upper triangle (``P[j, i] = 1 - P[i, j]``, 1/2 on the diagonal)."""
    p = np.triu(np.asarray(p_upper, dtype=float), 1)
    p = p + np.tril(1.0 - p.T, -1)
    np.fill_diagonal(p, 0.5)
    return p


def elo_of(rates, games=50):
    """Elo ratings of a pool whose every pair played ``games`` comparisons at exactly these win rates
    (the Bradley-Terry fit ``rate_agents`` uses)."""
    n = len(rates)
    pairs = [(i, j, rates[i, j]) for i in range(n) for j in range(i + 1, n) for _ in range(games)]
    return np.array(_bradley_terry(n, pairs, prior_sd_elo=400.0)[0])


def masses(result):
    return np.array([a["mass"] for a in result["agents"]])


def field(result, name):
    return [a[name] for a in result["agents"]]


def with_clone(rates, k):
    """The pool with a copy of agent ``k`` appended (it ties with ``k``, and plays everyone as ``k`` does)."""
    idx = list(range(len(rates))) + [k]
    return rates[np.ix_(idx, idx)]


# ------------------------------------------------------------------ non-transitive pools
def test_rock_paper_scissors_shares_the_mass_where_elo_sees_three_equal_agents():
    specs = ["rock", "paper", "scissors"]
    ar, nash = alpha_rank(RPS, specs), nash_averaging(RPS, specs)
    assert np.allclose(masses(ar), 1 / 3) and field(ar, "rank") == [1, 1, 1]
    assert np.allclose(masses(nash), 1 / 3) and np.allclose(field(nash, "skill"), 0.0)
    # Elo gives the cycle the ratings of three coin-flipping equals, and so predicts 50% in a pairing
    # that is won every time
    elo = elo_of(RPS)
    assert np.allclose(elo, 1500.0, atol=1e-6)
    assert np.allclose(elo, elo_of(np.full((3, 3), 0.5)), atol=1e-6)


def test_a_copy_of_rock_moves_elo_but_not_nash_averaging():
    specs = ["rock", "paper", "scissors", "rock2"]
    rates = with_clone(RPS, 0)
    elo = elo_of(rates)
    assert elo[1] > elo[0] + 50 and elo[1] > elo[2] + 50  # paper now beats two rocks: Elo's best
    nash = nash_averaging(rates, specs)
    # the maximum-entropy equilibrium splits rock's third between the copies; every skill stays 0
    assert np.allclose(masses(nash), [1 / 6, 1 / 3, 1 / 3, 1 / 6], atol=1e-6)
    assert np.allclose(field(nash, "skill"), 0.0)


def test_a_dominated_agent_gets_no_nash_mass_and_the_lowest_alpharank():
    # rock-paper-scissors and a fourth agent that loses to each of them
    rates = win_rates([[0, 0.0, 1.0, 0.8], [0, 0, 0.0, 0.7], [0, 0, 0, 0.75], [0, 0, 0, 0]])
    specs = ["rock", "paper", "scissors", "weak"]
    nash = nash_averaging(rates, specs)
    assert masses(nash)[3] == 0.0
    assert np.allclose(masses(nash)[:3], 1 / 3)
    assert field(nash, "skill")[3] < -0.4 and np.allclose(field(nash, "skill")[:3], 0.0)
    ar = alpha_rank(rates, specs)
    ranks = field(ar, "rank")
    assert ranks[3] > max(ranks[:3]) and ranks[:3] == [1, 1, 1]
    assert masses(ar)[3] < 1e-6 and np.allclose(masses(ar)[:3], 1 / 3, atol=1e-6)


def test_a_transitive_pool_ranks_like_elo():
    strength = np.array([1.1, 0.0, 2.0, 0.4])  # not in index order
    rates = 1.0 / (1.0 + np.exp(strength[None, :] - strength[:, None]))
    specs = ["c", "a", "d", "b"]
    elo_order = list(np.argsort(-elo_of(rates)))
    assert elo_order == list(np.argsort(-strength))
    nash = nash_averaging(rates, specs)
    assert masses(nash)[elo_order[0]] == pytest.approx(1.0)
    assert list(np.argsort(-np.array(field(nash, "skill")))) == elo_order
    # large alpha: the best agent takes the mass, the rest tie below it, never above an Elo-better agent
    ranks = np.array(field(alpha_rank(rates, specs), "rank"))
    assert ranks[elo_order[0]] == 1 and all(np.diff(ranks[elo_order]) >= 0) and ranks[elo_order[-1]] > 1
    # a weak selection resolves the whole order, and it is Elo's
    weak = alpha_rank(rates, specs, alpha=0.1)
    assert list(np.argsort(-masses(weak))) == elo_order
    assert sorted(field(weak, "rank")) == [1, 2, 3, 4]


def test_the_default_alpha_is_where_openspiels_sweep_settles():
    alpharank = pytest.importorskip("open_spiel.python.egt.alpharank")
    pools = [RPS, win_rates([[0, 0.2, 0.15], [0, 0, 0.4], [0, 0, 0]]),
             win_rates([[0, 0.0, 1.0, 0.8], [0, 0, 0.0, 0.7], [0, 0, 0, 0.75], [0, 0, 0, 0]])]
    for rates in pools:
        with np.errstate(over="ignore", under="ignore"):
            swept = alpharank.sweep_pi_vs_alpha([rates])
        assert np.allclose(masses(alpha_rank(rates, [str(i) for i in range(len(rates))])), swept, atol=1e-4)


def test_max_entropy_nash_is_an_equilibrium_that_spreads_over_copies():
    rng = np.random.default_rng(7)
    for _ in range(60):
        n = int(rng.integers(2, 6))
        rates = win_rates(rng.uniform(0, 1, (n, n)))
        for k in rng.integers(0, n, int(rng.integers(0, 3))):
            rates = with_clone(rates, int(k))
        game = rates - rates.T
        p = max_entropy_nash(game)
        assert p.min() >= 0 and p.sum() == pytest.approx(1.0)
        assert np.max(game @ p) < 1e-7  # no agent does better than 0 against the mixture
        for i in range(len(p)):  # identical agents share equally (entropy is maximal)
            same = [j for j in range(len(p)) if np.array_equal(rates[j], rates[i])]
            assert np.ptp(p[same]) < 1e-5, (p, same)


def test_bad_win_rates_are_refused():
    with pytest.raises(ValueError, match="n x n"):
        nash_averaging(RPS[:2], ["a", "b", "c"])
    with pytest.raises(ValueError, match="from 0 to 1"):
        nash_averaging(RPS * 2, ["a", "b", "c"])


def test_without_openspiel_alpharank_says_how_to_install_and_nash_still_works(monkeypatch):
    monkeypatch.setitem(sys.modules, "open_spiel.python.egt", None)  # its import now fails
    with pytest.raises(ValueError, match=r'pip install -e "\.\[openspiel\]"') as err:
        alpha_rank(RPS, ["r", "p", "s"])
    assert "\n" not in str(err.value)
    assert np.allclose(masses(nash_averaging(RPS, ["r", "p", "s"])), 1 / 3)


# ------------------------------------------------------------------ from a round robin
@pytest.mark.parametrize("players", [2, 3])
def test_win_rate_matrix_of_a_round_robin(players):
    specs = ["random", "greedy", "heuristic"]
    rating = rate_agents(RulesConfig(num_players=players, target=60), specs, games=6, seed=1)
    rates, labels = win_rate_matrix(rating)
    assert labels == specs
    assert np.allclose(np.diag(rates), 0.5) and np.allclose(rates + rates.T, 1.0)
    if players == 2:  # each pair's rate is the game win rate of its own match
        for m in rating["matches"]:
            i, j = (specs.index(s) for s in m["specs"])
            assert rates[i, j] == pytest.approx(m["agents"][0]["win_rate"])
    json.dumps(rating)  # still plain JSON


def test_rate_method_all_prints_the_three_tables(capsys, tmp_path):
    pool = ["--players", "2", "--agents", "random", "greedy", "heuristic", "--games", "20"]
    out_json = tmp_path / "r.json"
    status, out, err = run_cli(capsys, "rate", *pool, "--method", "all", "--json", str(out_json))
    assert status == 0, err
    blocks = out.strip().split("\n\n")
    assert len(blocks) == 3
    assert blocks[0].splitlines()[1].split() == ["agent", "Elo", "+/-", "95%"]
    assert blocks[1].startswith("AlphaRank by OpenSpiel, alpha 100, population 50")
    assert blocks[2].startswith("Nash averaging")
    for block, agent_column in zip(blocks, (0, 1, 0)):  # every agent once in every table
        rows = block.splitlines()[3:]
        assert sorted(row.split()[agent_column] for row in rows) == ["greedy", "heuristic", "random"]
    data = json.loads(out_json.read_text())
    assert blocks[0] == format_ratings(data)
    assert blocks[1] == format_alpharank(data["alpharank"]) and blocks[2] == format_nash(data["nash"])
    for method in ("alpharank", "nash"):
        assert sum(a["mass"] for a in data[method]["agents"]) == pytest.approx(1.0)
    # the same round robin as plain Elo, whose output stays the Elo table alone
    status, elo_out, _ = run_cli(capsys, "rate", *pool)
    assert status == 0 and elo_out.strip() == blocks[0]


def test_rate_method_nash_needs_no_openspiel(capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "open_spiel.python.egt", None)
    status, out, err = run_cli(capsys, "rate", "--agents", "random", "greedy", "--games", "2", "--target", "60",
                               "--method", "nash")
    assert status == 0, err
    assert out.startswith("Nash averaging") and "Elo" not in out


def _refuse(*args, **kwargs):
    raise AssertionError("the round robin started before the bad input was refused")


@pytest.mark.parametrize("argv, words", [
    (["--method", "glicko"], ["argument --method: invalid choice: 'glicko'", "'elo', 'alpharank', 'nash', 'all'"]),
    (["--method", "alpharank", "--no-openspiel"], ['pip install -e ".[openspiel]"']),
    (["--method", "nash", "--no-scipy"], ["Nash averaging needs scipy", "pip install scipy"]),
    (["--method", "all", "--no-scipy"], ["Nash averaging needs scipy", "pip install scipy"]),
])
def test_a_bad_method_is_one_line_before_any_game(capsys, monkeypatch, argv, words):
    monkeypatch.setattr(allfives_env.arena.match, "_play_deals", _refuse)
    if "--no-openspiel" in argv:
        argv = argv[:-1]
        monkeypatch.setitem(sys.modules, "open_spiel.python.egt", None)
    if "--no-scipy" in argv:  # an environment-only install: no scipy
        argv = argv[:-1]
        monkeypatch.setitem(sys.modules, "scipy.optimize", None)
    status, out, err = run_cli(capsys, "rate", "--agents", "random", "greedy", "--games", "2", *argv)
    assert status == 2 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("allfives rate: error: ")
    for word in words:
        assert word in lines[0]


def _rating(score, games):
    return {"agents": [{"spec": s} for s in ("a", "b", "c")], "pairwise": {"score": score, "games": games}}


def test_a_pair_that_played_no_game_is_refused_not_divided_by_zero():
    """A pair with 0 games has no win rate: the matrix is refused in one line instead of holding nan.
    Catches (population.py win_rate_matrix: ``games[off] <= 0`` -> ``< 0``)."""
    score = [[0, 3, 1], [1, 0, 0], [1, 0, 0]]
    games = [[0, 4, 2], [4, 0, 0], [2, 0, 0]]  # b and c never met
    with pytest.raises(ValueError, match="do not cover every pair"):
        win_rate_matrix(_rating(score, games))
    games[1][2] = games[2][1] = 2
    score[1][2], score[2][1] = 1.5, 0.5
    rates, specs = win_rate_matrix(_rating(score, games))
    assert specs == ["a", "b", "c"] and np.allclose(rates, [[0.5, 0.75, 0.5], [0.25, 0.5, 0.75], [0.5, 0.25, 0.5]])
