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
