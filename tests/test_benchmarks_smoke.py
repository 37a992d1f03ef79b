"""The benchmark scripts run and print their tables (tiny budgets; speed itself is not tested)."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run_script(*args):
    done = subprocess.run([sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_aec_speed_prints_every_row():
    out = run_script("benchmarks/aec_speed.py", "--seconds", "0.05", "--repeats", "1")
    for row in ("connect_four_v3", "allfives env, 2 players", "allfives env, 4 players", "engine only, 4 players"):
        assert row in out


def test_vector_speed_prints_aec_and_vector_rows():
    out = run_script("benchmarks/vector_speed.py", "--sizes", "64", "--seconds", "0.05", "--repeats", "1",
                     "--parallel", "off")
    assert "AEC env (2 players, backend=numba)" in out and "AEC env (2 players, backend=python)" in out
    assert "vector B=    64" in out and "x AEC (numba)" in out


def test_search_speed_prints_both_engines_per_player_count():
    out = run_script("benchmarks/search_speed.py", "--positions", "2", "--samples", "4")
    lines = out.strip().splitlines()
    assert lines[1].split() == ["players", "python", "compiled", "speed-up"]
    assert [line.split()[0] for line in lines[2:]] == ["2", "3", "4"]
    assert all(line.endswith("x") for line in lines[2:])


def test_compare_policies_pairs_deals_and_pools_sets(tmp_path):
    import json

    sys.path.insert(0, str(ROOT / "benchmarks"))
    from compare_policies import paired_difference

    from allfives_env.arena import run_match
    from allfives_env.rules import RulesConfig

    out = run_script("benchmarks/compare_policies.py", "--players", "2", "--seeds", "1", "2", "--games", "20",
                     "--target", "60", "--json", str(tmp_path / "c.json"), "g=greedy", "g2=greedy", "h=heuristic")
    result = json.loads((tmp_path / "c.json").read_text())
    rows = result["agents"]
    assert list(rows) == ["g", "g2", "h"] and out.splitlines()[0].startswith("agent")
    # an agent against itself on duplicate deals: exactly even, and no paired difference from its twin
    assert rows["g"]["win_rate"] == 0.5 and rows["g2"]["paired_difference_vs_first"] == 0.0
    # each set's win rate is the arena's own, and the pooled rate is the mean of equal-sized sets
    config = RulesConfig(num_players=2, target=60)
    per_seed = [run_match(config, ["heuristic", "greedy"], 20, seed=s).agent_stats()[0].win_rate for s in (1, 2)]
    assert [rows["h"]["win_rate_per_seed"][k] for k in ("1", "2")] == per_seed
    assert abs(rows["h"]["win_rate"] - sum(per_seed) / 2) < 1e-12
    assert abs(rows["h"]["paired_difference_vs_first"] - (rows["h"]["win_rate"] - 0.5)) < 1e-12
    # the paired interval by hand: per-deal differences 1, 0, 1, 1 (two games per deal)
    mean, half = paired_difference({1: 2.0, 2: 1.0, 3: 2.0, 4: 2.0}, {1: 0.0, 2: 1.0, 3: 0.0, 4: 0.0}, 2)
    assert mean == 0.75 and abs(half - 1.959963984540054 * 0.5 / 2) < 1e-12
    bad = subprocess.run([sys.executable, "benchmarks/compare_policies.py", "--seeds", "1", "greedy"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "NAME=SPEC" in bad.stderr


def test_sb3_vec_speed_prints_both_envs_and_the_ratio():
    out = run_script("benchmarks/sb3_vec_speed.py", "--num-envs", "16", "--single-envs", "2", "--seconds", "0.05",
                     "--repeats", "1", "--learn-seconds", "0")
    rows = [line for line in out.splitlines() if line.startswith("env side")]
    assert len(rows) == 2 and "vector VecEnv B=16" in rows[0] and "single wrapper" in rows[1]
    assert rows[0].endswith("x") and float(rows[0].split()[-1].rstrip("x")) > 0


def test_ladder_rates_every_agent_and_writes_its_table_and_plot(tmp_path):
    out = run_script("benchmarks/ladder.py", "--players", "2", "--games", "4", "--target", "30",
                     "--json", str(tmp_path / "l.json"), "--plot", str(tmp_path / "l.png"),
                     "--markdown", str(tmp_path / "l.md"))
    import json

    [rating] = json.loads((tmp_path / "l.json").read_text())
    specs = ["random", "greedy", "heuristic", "search:engine=compiled", "ppo:checkpoints/ppo_2p.pt", "champion"]
    assert [a["spec"] for a in rating["agents"]] == specs
    assert len(rating["matches"]) == 15  # every pair once
    assert {a["spec"] for a in rating["nash"]["agents"]} == set(specs)
    assert abs(sum(a["mass"] for a in rating["nash"]["agents"]) - 1) < 1e-6
    table = (tmp_path / "l.md").read_text()
    assert table.count("| `") == 6 and "Nash skill" in table and "round robin, 2 players" in out
    assert (tmp_path / "l.png").read_bytes()[:4] == b"\x89PNG"


def test_feature_speed_prints_every_input_per_player_count():
    out = run_script("benchmarks/feature_speed.py", "--envs", "16", "--steps", "6", "--repeats", "1")
    rows = [line.split() for line in out.strip().splitlines()[1:]]
    assert [(row[0], row[1]) for row in rows] == [(n, name) for n in "234"
                                                  for name in ("env", "reply_control", "lookahead")]
    assert all(row[-1].endswith("x") for row in rows)
