"""The benchmark scripts run and print their tables (tiny budgets; speed itself is not tested), and refuse
bad arguments in one line before any work."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from support import load_script

ROOT = Path(__file__).resolve().parents[1]


def load_benchmark(name):
    return load_script(f"benchmarks/{name}")


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
    from allfives_env.arena import run_match
    from allfives_env.rules import RulesConfig

    out = run_script("benchmarks/compare_policies.py", "--players", "2", "--seeds", "1", "2", "--games", "20",
                     "--target", "60", "--json", str(tmp_path / "c.json"), "g=greedy", "g2=greedy", "h=heuristic")
    result = json.loads((tmp_path / "c.json").read_text())
    rows = result["agents"]
    assert list(rows) == ["g", "g2", "h"] and out.splitlines()[0].startswith("agent")
    assert result["games_per_seed"] == 20 and out.splitlines()[-1] == "(20 games per deal set against greedy, 2 players)"
    # an agent against itself on duplicate deals: exactly even, and no paired difference from its twin
    assert rows["g"]["win_rate"] == 0.5 and rows["g2"]["paired_difference_vs_first"] == 0.0
    # each set's win rate is the arena's own, and the pooled rate is the mean of equal-sized sets
    config = RulesConfig(num_players=2, target=60)
    per_seed = [run_match(config, ["heuristic", "greedy"], 20, seed=s).agent_stats()[0].win_rate for s in (1, 2)]
    assert [rows["h"]["win_rate_per_seed"][k] for k in ("1", "2")] == per_seed
    assert abs(rows["h"]["win_rate"] - sum(per_seed) / 2) < 1e-12
    assert abs(rows["h"]["paired_difference_vs_first"] - (rows["h"]["win_rate"] - 0.5)) < 1e-12
    # the paired interval by hand: per-deal differences 1, 0, 1, 1 (two games per deal)
    mean, half = load_benchmark("compare_policies.py").paired_difference({1: 2.0, 2: 1.0, 3: 2.0, 4: 2.0}, {1: 0.0, 2: 1.0, 3: 0.0, 4: 0.0}, 2)
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


@pytest.mark.parametrize("script,args,message", [
    ("ladder.py", ["--players", "2", "--games", "2", "--plot", "/no/such/folder/l.png"],
     "--plot /no/such/folder/l.png: folder /no/such/folder does not exist"),
    ("ladder.py", ["--players", "2", "--json", "{tmp}"], "is an existing folder"),
    ("ladder.py", ["--players", "2", "--extra", "nope"], "unknown agent spec 'nope'"),
    ("ladder.py", ["--players", "2", "--games", "0"], "argument --games: 0 is not allowed; allowed: a positive whole"),
    ("ladder.py", ["--players", "2", "--seed", "-1"], "argument --seed: -1 is not allowed; allowed: a whole number >= 0"),
    ("ladder.py", ["--players", "2", "3", "--extra", "ppo:checkpoints/ppo_4p.pt"],
     "'checkpoints/ppo_4p.pt' was trained for 4 players; this game has 2"),
    ("held_out_styles.py", ["--players", "2", "--opponents", "heavy", "nope"], "unknown agent spec 'nope'"),
    ("held_out_styles.py", ["--players", "3", "--agents", "ppo:checkpoints/ppo_2p.pt"],
     "'checkpoints/ppo_2p.pt' was trained for 2 players; this game has 3"),
    ("held_out_styles.py", ["--games", "0"], "argument --games: 0 is not allowed; allowed: a positive whole"),
    ("held_out_styles.py", ["--games", "100000000"], "allowed: a positive whole number of games up to 1,000,000"),
    ("held_out_styles.py", ["--seed", "-1"], "argument --seed: -1 is not allowed; allowed: a whole number >= 0"),
    ("held_out_styles.py", ["--opponents", "Heavy"],
     "--opponents 'Heavy' is neither a style (heavy, light, doubles, eps_greedy, blocker) nor an agent spec"),
    ("held_out_styles.py", ["--markdown", "/no/such/folder/h.md"], "folder /no/such/folder does not exist"),
    ("agent_strength.py", ["--scale", "-1"], "--scale must be positive, got -1.0"),
    ("agent_strength.py", ["--json", "/no/such/folder/s.json"], "folder /no/such/folder does not exist"),
    ("compare_policies.py", ["--seeds", "1", "--json", "/no/such/folder/c.json", "a=greedy"],
     "folder /no/such/folder does not exist"),
    ("compare_policies.py", ["--seeds", "1", "--players", "5", "a=greedy"], "invalid choice: 5"),
    ("compare_policies.py", ["--seeds", "1", "--opponent", "nope", "a=greedy"], "unknown agent spec 'nope'"),
    ("aec_speed.py", ["--repeats", "0"], "--repeats must be positive, got 0"),
    ("aec_speed.py", ["--seconds", "-1"], "--seconds must be positive, got -1.0"),
    ("vector_speed.py", ["--sizes", "64", "-5"], "--sizes must be positive, got -5"),
    ("vector_speed.py", ["--players", "5"], "invalid choice: 5"),
    ("feature_speed.py", ["--steps", "0"], "--steps must be positive, got 0"),
    ("search_speed.py", ["--positions", "0"], "--positions must be positive, got 0"),
    ("sb3_vec_speed.py", ["--opponent", "champion"], "has no batched twin"),
    ("algorithm_baselines.py", ["--minutes", "-1"], "--minutes must be positive, got -1.0"),
    ("algorithm_baselines.py", ["--plot-only", "--out", "{tmp}/none"], "baselines.json does not exist; run the recipes"),
    ("algorithm_baselines.py", ["--out", "/proc/none"], "--out '/proc/none' cannot be written: '/proc' is not a writable"),
    ("compare_policies.py", ["a=greedy", "b=ppo:checkpoints/ppo_4p.pt", "--players", "2", "--seeds", "1"],
     "'checkpoints/ppo_4p.pt' was trained for 4 players; this game has 2"),
    ("compare_policies.py", ["a=greedy", "--players", "2", "--seeds", "1", "-1"],
     "--seeds -1 is not allowed; allowed: non-negative integers"),
    # the same deals twice were counted as twice the evidence
    ("compare_policies.py", ["a=greedy", "--players", "2", "--seeds", "1", "1"], "--seeds 1 is given twice"),
    # a spec twice, or a plot format matplotlib refuses, ended in a traceback (the plot's after every game)
    ("ladder.py", ["--players", "2", "--extra", "greedy"], "agent spec 'greedy' is in the 2-player ladder"),
    ("ladder.py", ["--players", "2", "--plot", "{tmp}/l.txt"], "l.txt: a picture is written as ."),
    ("held_out_styles.py", ["--players", "2", "--opponents", "heavy", "heavy"], "'heavy' is in --opponents twice"),
    # one output would overwrite the other
    ("ladder.py", ["--players", "2", "--json", "{tmp}/x", "--markdown", "{tmp}/x"], "name the same file"),
    # 100,000 workers started 2,000 processes; an output replaced the module of a module:Class agent
    ("compare_policies.py", ["a=greedy", "--players", "2", "--seeds", "1", "--workers", "100000"],
     "--workers: 100000 is not allowed; allowed: a positive whole number of worker processes up to 256"),
    ("ladder.py", ["--players", "2", "--workers", "257"], "worker processes up to 256"),
    ("ladder.py", ["--players", "2", "--extra", "benchmarks.held_out_styles:Blocker", "--json",
                   "benchmarks/held_out_styles.py"], "is the file that agent 'benchmarks.held_out_styles:Blocker' reads"),
    # a budget too short to measure divided by zero; endless or huge ones ran on; out-of-range ones ended in
    # tracebacks, one after all the other timings
    ("aec_speed.py", ["--seconds", "1e-9"], "--seconds 1e-09 is not allowed; allowed: at least 0.01"),
    ("aec_speed.py", ["--seconds", "inf"], "--seconds must be a finite number, got inf"),
    ("aec_speed.py", ["--repeats", "100000000000"], "--repeats 100000000000 is not allowed; allowed: at most 1,000"),
    ("vector_speed.py", ["--sizes", "8", "2000000"], "--sizes 2000000 is not allowed; allowed: at most 1,000,000"),
    ("sb3_vec_speed.py", ["--learn-seconds", "inf"], "--learn-seconds must be a finite number, got inf"),
    ("search_speed.py", ["--seed", "-1"], "--seed -1 is not allowed; allowed: a whole number >= 0"),
    ("search_speed.py", ["--samples", "1000000000"], "--samples 1000000000 is not allowed; allowed: at most 100,000"),
    ("feature_speed.py", ["--envs", "2000000"], "--envs 2000000 is not allowed; allowed: at most 1,000,000"),
    ("agent_strength.py", ["--scale", "inf"], "--scale must be a finite number, got inf"),
    ("agent_strength.py", ["--seed", "-1"], "argument --seed: -1 is not allowed; allowed: a whole number >= 0"),
    ("held_out_styles.py", ["--players", "2", "--json", "{tmp}/x", "--markdown", "{tmp}/x"], "name the same file"),
])
def test_bad_arguments_are_refused_in_one_line_before_any_work(script, args, message, tmp_path, capsys):
    """Before, some of these played every game and then failed to write, or ended in a traceback."""
    main = load_benchmark(script).main
    args = [arg.replace("{tmp}", str(tmp_path)) for arg in args]
    try:
        code = main(args)
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    captured = capsys.readouterr()
    assert captured.out == ""  # no table printed: nothing was played or timed
    assert message in captured.err.strip().splitlines()[-1]
    assert not list(tmp_path.iterdir())  # nothing written or made


def test_aec_speed_plays_every_entry_once_untimed_before_the_timed_runs(monkeypatch, capsys):
    """The first game of an entry loads its compiled kernels: timed, it made a one-repeat figure 300x too low."""
    module = load_benchmark("aec_speed.py")
    calls = []

    def fake_rate(*args, seconds=None, **kwargs):
        calls.append(seconds if seconds is not None else args[1])
        return 1.0

    monkeypatch.setattr(module, "aec_decisions_per_second", fake_rate)
    monkeypatch.setattr(module, "engine_decisions_per_second", fake_rate)
    module.main(["--seconds", "0.5", "--repeats", "2"])
    entries = len(capsys.readouterr().out.strip().splitlines()) - 1
    assert entries == 8 and calls == [module.WARM_UP_SECONDS] * entries + [0.5] * (2 * entries)


def _recipe_result(win_rate, games):
    return {"decisions": 1000, "curve": [{"seconds": 30.0, "decisions": 1000, "win_rate": win_rate}],
            "final": {"win_rate": win_rate, "win_rate_ci95": [win_rate - 0.1, win_rate + 0.1], "games": games}}


def test_algorithm_baselines_keeps_other_recipes_and_reads_out_from_the_current_directory(tmp_path, monkeypatch,
                                                                                          capsys):
    """``--only`` replaces that recipe's entry alone, and a relative ``--out`` is the caller's (the recipes run
    from the checkout's root)."""
    module = load_benchmark("algorithm_baselines.py")
    out = tmp_path / "rel"
    out.mkdir()
    earlier = {"method": "DQN", "library": "OpenSpiel", "minutes": 10.0, "wall_seconds": 700.0, **_recipe_result(0.4, 2000)}
    (out / "baselines.json").write_text(json.dumps({"dqn": earlier}))
    seen = []
    monkeypatch.setitem(module.RECIPES, "sb3", ("MaskablePPO", "sb3-contrib",
                                                lambda minutes, folder, games: seen.append(folder) or _recipe_result(0.7, games)))
    monkeypatch.chdir(tmp_path)
    assert module.main(["--only", "sb3", "--out", "rel", "--minutes", "1", "--games", "20"]) == 0
    saved = json.loads((out / "baselines.json").read_text())
    assert seen == [str(out)] and saved["dqn"] == earlier and saved["sb3"]["final"]["win_rate"] == 0.7
    table = capsys.readouterr().out
    assert "| DQN | OpenSpiel | 10 min | 0.0 M | 0.400 [0.300, 0.500] | 2,000 |" in table  # each entry's own games
    assert "| MaskablePPO | sb3-contrib | 1 min | 0.0 M | 0.700 [0.600, 0.800] | 20 |" in table
    assert (out / "baselines_curves.png").read_bytes()[:4] == b"\x89PNG"


def test_a_failed_recipe_stops_with_one_line_naming_its_log(tmp_path, monkeypatch, capsys):
    module = load_benchmark("algorithm_baselines.py")

    def failing(minutes, folder, games):
        module.run([module.PY, "-c", "import sys; print('starting'); print('the real cause'); sys.exit(3)"],
                   str(Path(folder) / "failing.log"))

    monkeypatch.setitem(module.RECIPES, "rllib", ("PPO", "RLlib", failing))
    assert module.main(["--only", "rllib", "--out", str(tmp_path / "out")]) == 1
    [line] = capsys.readouterr().err.strip().splitlines()
    assert line == (f"algorithm_baselines.py: error: recipe rllib: -c exited with 3: the real cause "
                    f"(whole output: {tmp_path / 'out' / 'failing.log'})")
    assert not (tmp_path / "out" / "baselines.json").exists()


def test_algorithm_baselines_refuses_an_earlier_ours_run_before_any_recipe(tmp_path, monkeypatch, capsys):
    """The training would refuse it only when its turn came, after the recipes listed before it had run."""
    module = load_benchmark("algorithm_baselines.py")
    (tmp_path / "ours_run").mkdir()
    (tmp_path / "ours_run" / "policy.pt").write_bytes(b"")
    monkeypatch.setitem(module.RECIPES, "sb3", ("m", "l", lambda *a: pytest.fail("ran a recipe")))
    with pytest.raises(SystemExit) as exit_info:
        module.main(["--only", "sb3", "ours", "--out", str(tmp_path)])
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert exit_info.value.code == 2 and "holds an earlier run of the ours recipe (policy.pt)" in line


def test_a_benchmark_refuses_to_write_over_a_policy_an_agent_reads(tmp_path, capsys):
    """compare_policies --json PATH, with PATH the file one of its agents reads, played every game and then
    wrote its results over that policy."""
    import shutil

    from allfives_env.agents.registry import shipped_file

    mine = tmp_path / "mine.pt"
    shutil.copy(shipped_file("checkpoints/ppo_2p.pt"), mine)
    before = mine.read_bytes()
    code = load_benchmark("compare_policies.py").main(
        ["--players", "2", "--seeds", "1", "--games", "2", "--json", str(mine), f"a=ppo:{mine}"])
    assert code == 2 and f"is the file that agent 'ppo:{mine}' reads" in capsys.readouterr().err
    assert mine.read_bytes() == before


def test_the_ladder_refuses_to_write_over_a_policy_its_own_pool_reads(tmp_path, monkeypatch, capsys):
    """The pool's ppo:checkpoints/ppo_2p.pt finds a copy in the working folder before the shipped file; only
    --extra's files were checked."""
    import shutil

    from allfives_env.agents.registry import shipped_file

    monkeypatch.chdir(tmp_path)
    (tmp_path / "checkpoints").mkdir()
    shutil.copy(shipped_file("checkpoints/ppo_2p.pt"), tmp_path / "checkpoints" / "ppo_2p.pt")
    before = (tmp_path / "checkpoints" / "ppo_2p.pt").read_bytes()
    with pytest.raises(SystemExit) as exit_info:
        load_benchmark("ladder.py").main(["--players", "2", "--games", "2", "--target", "10", "--json",
                                          "checkpoints/ppo_2p.pt"])
    assert exit_info.value.code == 2
    assert "is the file that agent 'ppo:checkpoints/ppo_2p.pt' reads" in capsys.readouterr().err
    assert (tmp_path / "checkpoints" / "ppo_2p.pt").read_bytes() == before


def test_compare_policies_writes_no_nan_for_a_single_deal(tmp_path):
    """One deal leaves no spread for the paired interval: the JSON held NaN, which strict parsers refuse."""
    out = run_script("benchmarks/compare_policies.py", "--players", "2", "--seeds", "1", "--games", "2",
                     "--target", "30", "--json", str(tmp_path / "c.json"), "a=greedy", "b=random")
    result = json.loads((tmp_path / "c.json").read_text(), parse_constant=lambda name: pytest.fail(name))
    assert result["agents"]["b"]["paired_difference_ci95_half_width"] is None
    assert "+- n/a (one deal)" in out.splitlines()[2]
