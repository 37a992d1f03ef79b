"""allfives-benchmark-v1 (arena.benchmark, `allfives benchmark`): pinned deal sets, scores equal to a plain
arena match on the same deals, and a control variate that is unbiased and reduces the variance it reports."""

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

import allfives_env.agents.random_agent
from allfives_env.arena import run_match
from allfives_env.arena.batched import batched_match
from allfives_env.arena.benchmark import (
    CHECKSUMS,
    DEAL_SEEDS,
    FULL_DEALS,
    QUICK_DEALS,
    control_variate_estimate,
    deal_set,
    deal_set_checksum,
    estimates,
    format_scorecard,
    ladder,
    per_deal_means,
    per_game_results,
)
from allfives_env.rules import RulesConfig

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("num_players", [2, 3, 4])
@pytest.mark.parametrize("quick", [True, False])
def test_deal_sets_reproduce_their_pinned_checksums(num_players, quick):
    info = deal_set(num_players, quick)
    assert info["deals"] == (QUICK_DEALS if quick else FULL_DEALS)
    assert info["checksum"] == CHECKSUMS[(num_players, info["deals"])]


def test_the_checksum_sees_every_change_of_seed_size_or_players():
    config = RulesConfig(num_players=2)
    base = deal_set_checksum(config, DEAL_SEEDS[2], 5)
    assert deal_set_checksum(config, DEAL_SEEDS[2] + 1, 5) != base
    assert deal_set_checksum(config, DEAL_SEEDS[2], 6) != base
    assert deal_set_checksum(RulesConfig(num_players=3), DEAL_SEEDS[2], 5) != base


def run_cli(*args):
    done = subprocess.run([sys.executable, "-m", "allfives_env.cli", *args], capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_greedys_scorecard_matches_plain_arena_matches_on_the_same_deals(tmp_path):
    card_path, md_path = tmp_path / "card.json", tmp_path / "card.md"
    out = run_cli("benchmark", "greedy", "--players", "2", "--quick", "--json", str(card_path),
                  "--markdown", str(md_path), "--no-progress")
    card = json.loads(card_path.read_text())
    assert card["protocol"] == "allfives-benchmark-v1" and card["full_ladder"] and card["quick"]
    assert [row["opponent"] for row in card["opponents"]] == ladder(2)
    assert md_path.read_text() in out + "\n" or md_path.read_text().strip() == out.strip()
    config = RulesConfig(num_players=2)
    for row in card["opponents"][:3]:  # random, greedy, heuristic: the plain match, same seed and games
        match = run_match(config, ["greedy", row["opponent"]], card["games"], seed=card["seed"]).to_dict()
        me = match["agents"][0]
        assert row["win_rate"]["raw"]["mean"] == pytest.approx(me["win_rate"])
        assert row["win_rate"]["raw"]["ci95"] == pytest.approx(me["win_rate_ci95"])
        assert row["margin"]["raw"]["mean"] == pytest.approx(me["margin_per_game"])
        assert row["win_rate"]["duplicate"]["mean"] == pytest.approx(me["win_rate"])
    assert card["candidate_files"] == {}  # greedy reads no file
    # greedy is the control variate's reference: it gets none against any rung
    assert all(row["no_control_variate"] == "the candidate is the reference" for row in card["opponents"])


def test_other_candidates_get_a_control_variate_against_opponents_with_a_batched_twin():
    from allfives_env.arena.benchmark import run_benchmark

    card = run_benchmark("heuristic", 2, quick=True, opponents=["random", "search"])
    with_twin, without = card["opponents"]
    assert "control_variate" in with_twin["win_rate"] and "control_variate" in with_twin["margin"]
    assert card["reference_deals"] == 2000 and not card["full_ladder"]
    assert without["no_control_variate"] == "no batched twin"  # search's Python engine has none
    from allfives_env.arena.benchmark import code_version

    assert card["code"] == code_version()


def test_the_code_is_read_before_the_first_match(monkeypatch):
    """A long run's checkout may change while it plays: the card names the code that started it."""
    from allfives_env.arena import benchmark

    order = []
    monkeypatch.setattr(benchmark, "code_version", lambda: order.append("code") or {"version": "v", "commit": "c"})
    real_match = benchmark.run_match
    monkeypatch.setattr(benchmark, "run_match", lambda *a, **k: order.append("match") or real_match(*a, **k))
    card = benchmark.run_benchmark("greedy", 2, quick=True, opponents=["random"])
    assert order[0] == "code" and "match" in order and card["code"] == {"version": "v", "commit": "c"}


def test_bad_specs_and_outputs_fail_before_any_game(tmp_path):
    done = subprocess.run([sys.executable, "-m", "allfives_env.cli", "benchmark", "greedy", "--quick",
                           "--opponents", "nope"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown agent spec 'nope'" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    done = subprocess.run([sys.executable, "-m", "allfives_env.cli", "benchmark", "greedy", "--quick",
                           "--json", str(tmp_path / "missing" / "x.json")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 2 and "does not exist" in done.stderr
    for args, message in ((["ppo:checkpoints/ppo_3p.pt", "--players", "2"], "trained for 3 players"),
                          (["greedy", "--opponents", "random", "random"], "'random' is in --opponents twice"),
                          # an opponent's own check too, not after the matches before it
                          (["greedy", "--players", "2", "--opponents", "random", "ppo:checkpoints/ppo_3p.pt"],
                           "trained for 3 players")):
        done = subprocess.run([sys.executable, "-m", "allfives_env.cli", "benchmark", *args, "--quick"],
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and message in done.stderr and "games" not in done.stderr  # before any match
        assert len(done.stderr.strip().splitlines()) == 1


# ------------------------------------------------------------------ the control variate
def test_control_variate_is_unbiased_and_its_standard_error_is_honest_on_synthetic_deals():
    """y = 0.3 + 0.8 x + noise with E[x] = mu known up to mu_se: over many deal sets the estimate's mean is
    E[y] and its spread matches the reported standard error, below the plain mean's."""
    rng = np.random.default_rng(0)
    estimates_, plain, reported = [], [], []
    for _ in range(3000):
        x = rng.normal(1.0, 1.0, 60)
        y = 0.3 + 0.8 * x + rng.normal(0, 0.5, 60)
        mu_sample = rng.normal(1.0, 1.0, 6000)
        cv = control_variate_estimate(y, x, mu_sample.mean(), mu_sample.std(ddof=1) / np.sqrt(6000))
        estimates_.append(cv["mean"])
        plain.append(y.mean())
        reported.append(cv["se"])
    assert np.mean(estimates_) == pytest.approx(1.1, abs=0.01)  # E[y] = 0.3 + 0.8
    assert np.std(estimates_) == pytest.approx(np.mean(reported), rel=0.1)
    assert np.var(estimates_) < 0.35 * np.var(plain)  # 1 - rho^2 = 0.25/0.89 of the plain variance


def batched_estimates(seed, candidate_spec, opponent, deals=40):
    """One small benchmark on the batched env, greedy's luck on the same deals as the control variate."""
    config = RulesConfig(num_players=2)
    candidate = batched_match(config, [candidate_spec, opponent], deals, seed=seed)
    reference = batched_match(config, ["greedy", opponent], deals, seed=seed)  # the same deals
    sample = batched_match(config, ["greedy", opponent], 2000, seed=10_000 + seed)
    return estimates(candidate, reference, sample)["margin"]


@pytest.mark.parametrize("candidate_spec,opponent", [("heuristic", "random"), ("random", "heuristic")])
def test_on_real_games_the_control_variate_is_unbiased_and_reports_its_reduction_truly(candidate_spec, opponent):
    """Over 60 independent deal sets: the control-variate estimates average to the raw estimates' mean, and
    their variance relative to the raw estimates' is what the reported standard errors say."""
    runs = [batched_estimates(seed, candidate_spec, opponent) for seed in range(60)]
    raw = np.array([r["raw"]["mean"] for r in runs])
    cv = np.array([r["control_variate"]["mean"] for r in runs])
    difference = cv - raw
    assert abs(difference.mean()) < 3.5 * difference.std(ddof=1) / np.sqrt(len(runs)) + 1e-9
    empirical = np.var(cv, ddof=1) / np.var(raw, ddof=1)
    reported = np.mean([r["control_variate"]["se"] ** 2 for r in runs]) / np.mean([r["raw"]["se"] ** 2 for r in runs])
    assert 0.6 * reported < empirical < 1.6 * reported


def test_the_batched_reference_sample_estimates_what_the_arena_plays():
    """The control variate's expectation comes from the batched env: greedy against heuristic there and in
    the arena (other deals, the same distribution and agents) agree within their intervals."""
    config = RulesConfig(num_players=2)
    arena = per_game_results(run_match(config, ["greedy", "heuristic"], 400, seed=77))
    batched = batched_match(config, ["greedy", "heuristic"], 3000, seed=78)
    for metric in ("win_share", "margin"):
        a, b = arena[metric], batched[metric]
        se = np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        assert abs(a.mean() - b.mean()) < 3 * se, metric


def test_per_deal_means_average_each_deals_games():
    assert per_deal_means(np.array([1.0, 0.0, 0.5, 0.5, 1.0, 1.0]), np.array([0, 0, 1, 1, 2, 2])).tolist() == \
        [0.5, 0.5, 1.0]


def test_a_win_rate_interval_stays_within_0_and_1():
    """Nearly every deal won: the normal interval of the per-deal means would pass 1."""
    deals = np.repeat(np.arange(20), 2)
    share = np.ones(40)
    share[0] = 0.0
    luck = np.linspace(-1.0, 1.0, 40)
    candidate = {"win_share": share, "margin": 100 * share, "deal": deals}
    reference = {"win_share": 0.5 + 0.1 * luck, "margin": luck, "deal": deals}
    result = estimates(candidate, reference, reference)["win_rate"]
    for name in ("duplicate", "control_variate"):
        lo, hi = result[name]["ci95"]
        assert 0.0 <= lo <= result[name]["mean"] <= hi <= 1.0, name
    assert result["duplicate"]["ci95"][1] == 1.0  # clipped, not shifted


def test_every_game_won_gives_wilsons_interval_not_a_point():
    """The per-deal spread is 0, so the normal interval is [1, 1]; 40 wins of 40 say [0.912, 1]."""
    deals = np.repeat(np.arange(20), 2)
    luck = np.linspace(-1.0, 1.0, 40)
    candidate = {"win_share": np.ones(40), "margin": np.full(40, 50.0), "deal": deals}
    reference = {"win_share": 0.5 + 0.1 * luck, "margin": luck, "deal": deals}
    result = estimates(candidate, reference, reference)["win_rate"]
    assert result["raw"]["ci95"][0] == pytest.approx(0.912, abs=5e-4)
    for name in ("duplicate", "control_variate"):
        assert result[name]["mean"] == 1.0 and result[name]["ci95"] == result["raw"]["ci95"], name


def test_a_third_on_every_deal_with_3_players_gives_wilsons_interval_not_a_point():
    """Every deal's mean is 1/3, summed in different orders: a standard error of 1e-17 made the card read
    0.333 [0.333, 0.333] (100%) for greedy against the 3-player ladder's greedy rung."""
    deals = np.repeat(np.arange(20), 3)
    pattern = [[1, 0, 0], [1 / 3, 1 / 3, 1 / 3], [0.5, 0.5, 0], [0, 0.5, 0.5], [1 / 3, 2 / 3, 0]]
    share = np.concatenate([pattern[d % 5] for d in range(20)]).astype(float)
    luck = np.linspace(-1.0, 1.0, 60)
    candidate = {"win_share": share, "margin": 10 * share, "deal": deals}
    reference = {"win_share": 0.5 + 0.1 * luck, "margin": luck, "deal": deals}
    result = estimates(candidate, reference, reference)["win_rate"]
    assert 0 < result["duplicate"]["se"] < 1e-15  # the residue the test is about
    for name in ("duplicate", "control_variate"):
        assert result[name]["ci95"] == result["raw"]["ci95"] and "variance_reduction" not in result[name], name
    assert result["raw"]["ci95"][1] - result["raw"]["ci95"][0] > 0.1


def test_a_variance_reduction_of_a_rounding_residue_reads_0_percent():
    from allfives_env.arena.benchmark import _mean_ci

    entry = {"mean": 0.5, "ci95": [0.4, 0.6], "variance_reduction": -4e-16}
    assert _mean_ci(entry, 3, reduction=True) == "0.500 [0.400, 0.600] (0%)"
    assert _mean_ci({**entry, "variance_reduction": -0.052}, 3, reduction=True).endswith("(-5%)")


def test_the_scorecard_names_the_pinned_rung_apart_from_the_shipped_policy():
    from allfives_env.arena.benchmark import _short

    assert _short("ppo:checkpoints/benchmark_v1/ppo_2p.pt,infer=off") == "ppo:checkpoints/benchmark_v1/ppo_2p.pt,infer=off"
    assert _short("ppo:checkpoints/ppo_2p.pt") == "ppo:checkpoints/ppo_2p.pt"
    assert _short("ppo:/elsewhere/runs/r1/policy.pt,sample=true") == "ppo:r1/policy.pt,sample=true"
    assert _short("ppo:ppo_2p.pt") == "ppo:ppo_2p.pt" and _short("greedy") == "greedy"


def test_the_scorecards_rung_is_a_spec_that_plays_from_any_folder(tmp_path, monkeypatch):
    """The scorecard named the rung ppo:benchmark_v1/ppo_2p.pt, which no spec finds (a paste failed)."""
    from allfives_env.agents.registry import make_agent
    from allfives_env.arena.benchmark import _short

    monkeypatch.chdir(tmp_path)
    for players in (2, 3, 4):
        shown = _short(ladder(players)[-1])
        assert make_agent(shown).num_players == players, shown


def test_a_rung_copy_in_the_working_folder_is_named_as_its_spec_gave_it(tmp_path, monkeypatch):
    """The spec finds a copy in the working folder before the shipped file; the card showed it as
    ppo:benchmark_v1/ppo_2p.pt, a form no spec finds."""
    import shutil

    from allfives_env.agents.registry import shipped_file
    from allfives_env.arena.benchmark import _short, rung_file

    monkeypatch.chdir(tmp_path)
    (tmp_path / "checkpoints" / "benchmark_v1").mkdir(parents=True)
    shutil.copy(shipped_file(rung_file(2)), tmp_path / rung_file(2))
    assert _short(ladder(2)[-1]) == ladder(2)[-1]


def test_batched_match_plays_every_rotation_and_counts_the_margin_zero_sum():
    config = RulesConfig(num_players=3)
    result = batched_match(config, ["greedy", "greedy", "greedy"], 30, seed=1)
    assert len(result["win_share"]) == 90 and set(result["deal"]) == set(range(30))
    # self-play on the same deals in every rotation: each deal's shares sum to 1 over the three seats' games
    assert np.allclose(np.bincount(result["deal"], weights=result["win_share"]), 1.0)
    assert np.allclose(np.bincount(result["deal"], weights=result["margin"]), 0.0)


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_ladders_policy_is_the_pinned_v1_file_not_the_shipped_one(players):
    import hashlib

    from allfives_env.arena.benchmark import RUNG_SHA256, check_rung_policy, rung_policy_path

    check_rung_policy(players)
    path = rung_policy_path(players)
    assert ladder(players)[-1] == f"ppo:checkpoints/benchmark_v1/ppo_{players}p.pt,infer=off"
    assert path.endswith(f"checkpoints/benchmark_v1/ppo_{players}p.pt")
    assert hashlib.sha256(open(path, "rb").read()).hexdigest() == RUNG_SHA256[players]


def test_the_ladders_policy_plays_without_the_greedy_exclusions_whatever_the_agents_default():
    """The 4-player rung was trained with the exclusions as inputs; v1 scores against it without them."""
    from allfives_env.agents.registry import make_agent

    rung = make_agent(ladder(4)[-1])
    assert rung.infer == "off" and not rung.features.endswith("_infer")
    assert make_agent(ladder(4)[-1].replace("infer=off", "infer=greedy")).infer == "greedy"  # the file allows it


def _git(root, *args):
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


def test_a_scorecard_names_the_commit_of_its_own_checkout_and_marks_changes(tmp_path):
    from allfives_env import __version__
    from allfives_env.arena.benchmark import code_version

    repo = tmp_path / "checkout"
    repo.mkdir()
    (repo / "pyproject.toml").write_text("[project]\n")
    _git(repo, "init", "-q")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "empty")
    _git(repo, "add", "pyproject.toml")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "one")
    head = subprocess.run(["git", "-C", str(repo), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert code_version(repo) == {"version": __version__, "commit": head}
    (repo / "untracked.txt").write_text("not part of the commit's files")
    assert code_version(repo)["commit"] == head  # untracked files do not make it dirty
    (repo / "pyproject.toml").write_text("[project]\nname = 'changed'\n")
    assert code_version(repo)["commit"] == head + "-dirty"
    inside = repo / "vendored"  # a tree inside another checkout is not that checkout's code
    inside.mkdir()
    assert code_version(inside)["commit"] is None
    assert code_version(tmp_path)["commit"] is None  # no git at all


def test_by_default_the_commit_is_the_checkout_the_package_runs_from():
    from allfives_env.arena.benchmark import code_version

    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--show-toplevel"], capture_output=True, text=True)
    if done.returncode != 0 or Path(done.stdout.strip()).resolve() != ROOT.resolve():
        assert code_version()["commit"] is None  # an unpacked archive, or a copy inside another repository
        return
    head = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short=12", "HEAD"], capture_output=True,
                          text=True, check=True).stdout.strip()
    assert code_version()["commit"].removesuffix("-dirty") == head
    assert code_version() == code_version(ROOT)


def test_the_markdown_card_names_the_code_and_old_cards_still_read():
    card = {"protocol": "allfives-benchmark-v1", "candidate": "greedy", "players": 2, "seed": 1, "deals": 20,
            "games": 40, "checksum": "0" * 64, "quick": True, "full_ladder": True, "reference": "greedy",
            "reference_deals": 2000, "code": {"version": "0.1.0", "commit": "abc123def456"}, "opponents": []}
    assert "Code: allfives-env 0.1.0, commit `abc123def456`." in format_scorecard(card)
    card["code"]["commit"] = None
    assert "Code: allfives-env 0.1.0." in format_scorecard(card)
    del card["code"]  # a scorecard written before the code was recorded
    assert "Code:" not in format_scorecard(card)


def test_a_changed_ladder_policy_is_refused(monkeypatch, tmp_path):
    from allfives_env.arena import benchmark

    changed = tmp_path / "ppo_2p.pt"
    changed.write_bytes(open(benchmark.rung_policy_path(2), "rb").read() + b"\0")
    monkeypatch.setattr(benchmark, "rung_policy_path", lambda n: str(changed))
    with pytest.raises(ValueError, match="not the pinned"):
        benchmark.run_benchmark("greedy", 2, quick=True)
    monkeypatch.setattr(benchmark, "rung_policy_path", lambda n: str(tmp_path / "gone.pt"))
    with pytest.raises(ValueError, match="is missing"):
        benchmark.run_benchmark("greedy", 2, quick=True)


def test_a_scorecard_names_the_bytes_of_the_files_its_candidate_reads(tmp_path):
    from allfives_env.arena.benchmark import candidate_files

    copy = tmp_path / "copy.pt"
    copy.write_bytes(open("checkpoints/ppo_2p.pt", "rb").read())
    files = candidate_files(f"ppo:{copy}")
    assert files == {str(copy): hashlib.sha256(copy.read_bytes()).hexdigest()}
    assert candidate_files(f"champion:value={copy}") == files
    # the champion's default value file, read without the spec naming it, by player count (was no file at all)
    for players, name in ((2, "checkpoints/ppo_2p.pt"), (4, "checkpoints/champion_value_4p.pt")):
        shipped = os.path.join(os.path.dirname(allfives_env.__file__), name)
        assert candidate_files("champion", players) == {name: hashlib.sha256(open(shipped, "rb").read()).hexdigest()}
    assert candidate_files(f"champion:value={copy}", 2) == files and candidate_files("champion:value=none", 2) == {}
    assert candidate_files("greedy") == {} and candidate_files("search:samples=4") == {}
    copy.write_bytes(copy.read_bytes() + b"\0")  # another file at the same path: another digest
    assert candidate_files(f"ppo:{copy}") != files
    source = os.path.abspath(allfives_env.agents.random_agent.__file__)  # a module:Class: its source file
    assert candidate_files("allfives_env.agents.random_agent:RandomAgent") == {
        "allfives_env.agents.random_agent": hashlib.sha256(open(source, "rb").read()).hexdigest()}


def test_the_ladder_names_its_rung_alike_everywhere_and_refuses_a_working_directory_copy_that_differs(
        tmp_path, monkeypatch):
    """The rung's spec is relative, so scorecards made anywhere name it alike; from a directory without the file
    the shipped one is read, and a different file of that name in the working directory (read first) is
    refused before any game. A shipped file a candidate names relatively is hashed where the agent reads it."""
    from allfives_env.arena import benchmark
    from allfives_env.arena.benchmark import candidate_files, check_rung_policy, rung_policy_path

    monkeypatch.chdir(tmp_path)
    shipped = rung_policy_path(2)
    assert os.path.isabs(shipped) and shipped.endswith("allfives_env/checkpoints/benchmark_v1/ppo_2p.pt")
    check_rung_policy(2)
    digest = hashlib.sha256(open(shipped.replace("benchmark_v1/ppo_2p", "ppo_2p"), "rb").read()).hexdigest()
    assert candidate_files("ppo:checkpoints/ppo_2p.pt") == {"checkpoints/ppo_2p.pt": digest}
    (tmp_path / "checkpoints" / "benchmark_v1").mkdir(parents=True)
    (tmp_path / "checkpoints" / "benchmark_v1" / "ppo_2p.pt").write_bytes(b"not the pinned file")
    assert rung_policy_path(2) == "checkpoints/benchmark_v1/ppo_2p.pt"
    assert ladder(2)[-1] == "ppo:checkpoints/benchmark_v1/ppo_2p.pt,infer=off"
    with pytest.raises(ValueError, match="not the pinned .* in the working directory is read before"):
        benchmark.run_benchmark("greedy", 2, quick=True)


def _fake_match(games):
    return SimpleNamespace(games=[SimpleNamespace(side_agent=sa, winners=w, scores=sc, deal=d)
                                  for sa, w, sc, d in games])


def test_per_game_results_share_a_drawn_game_and_take_the_mean_of_the_other_sides():
    """Protocol: a game drawn between k winners counts 1/k (R25); the margin is the candidate side's score
    minus the mean of the other sides' (3 players: two other sides)."""

    match = _fake_match([((0, 1, 2), [0, 2], [100, 40, 100], 0),   # drawn: candidate (side 0) shares with side 2
                         ((1, 2, 0), [1], [30, 110, 60], 0),       # candidate on side 2, lost
                         ((2, 0, 1), [1], [20, 105, 50], 1)])      # candidate on side 1, won alone
    res = per_game_results(match)
    assert res["win_share"].tolist() == [0.5, 0.0, 1.0]
    assert res["margin"].tolist() == pytest.approx([100 - 70, 60 - 70, 105 - 35])
    assert res["deal"].tolist() == [0, 0, 1]


def test_the_control_variates_reference_plays_the_candidates_deals(monkeypatch):
    """The reference's luck must be measured on the same deals as the candidate: every arena match of a
    benchmark run uses the deal set's seed and game count."""
    from allfives_env.arena import benchmark

    calls = []
    real = benchmark.run_match

    def spy(config, specs, games, seed=None, **kw):
        calls.append((tuple(specs), games, seed))
        return real(config, specs, games, seed=seed, **kw)

    monkeypatch.setattr(benchmark, "run_match", spy)
    monkeypatch.setattr(benchmark, "REFERENCE_DEALS", 400)  # a small reference sample: the seeds are the point
    card = benchmark.run_benchmark("heuristic", 2, quick=True, opponents=["random"])
    assert [c[0][0] for c in calls] == ["heuristic", "greedy"]  # the candidate, then the reference
    assert all(games == card["games"] and seed == card["seed"] for _, games, seed in calls)


@pytest.mark.parametrize("players, rotations", [(2, 2), (3, 3), (4, 2)])
def test_each_deal_is_played_once_per_rotation_of_the_sides(players, rotations):
    """Protocol: each deal once per rotation of the sides over the seats (2, 3 or 2 games with 2, 3 or 4
    players); more games would play deals outside the checksummed set."""
    from allfives_env.arena.schedule import num_deals

    info = deal_set(players, quick=True)
    assert info["games"] == QUICK_DEALS * rotations
    assert num_deals(info["games"], RulesConfig(num_players=players).num_sides) == info["deals"]


def test_with_three_players_every_rotations_game_measures_agent_0():
    """Rotation r seats agent (s + r) % 3 on side s, so agent 0 plays side -r % 3. Greedy against two random
    players wins most games in every rotation; measuring another side in rotations 1 and 2 would report a
    random player's results there. Catches (arena/batched.py: ``measured_side = (-rotation) % R`` ->
    ``rotation % R``)."""
    result = batched_match(RulesConfig(num_players=3, target=100), ["greedy", "random", "random"], 100, seed=3)
    rotation = np.arange(len(result["win_share"])) % 3
    for r in range(3):
        share = result["win_share"][rotation == r].mean()
        margin = result["margin"][rotation == r].mean()
        assert share > 0.6 and margin > 0, (r, share, margin)
