"""The package installed from a wheel (``pip install .``, ``pip install git+URL``) carries the shipped
policy files and configs, so the agents that load them (``ppo:checkpoints/...``, ``champion``), the
benchmark's ladder and the trainer's configs work outside a source checkout too."""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _files_under(folder):
    return {str(p.relative_to(ROOT)) for p in (ROOT / folder).rglob("*") if p.is_file()}


@pytest.mark.parametrize("package, folder", [("allfives_env", "checkpoints"), ("training", "configs")])
def test_the_wheel_declares_every_shipped_file(package, folder):
    """The package data patterns name every file under the root's folder (a new shipped file cannot be
    left out), through the package's link to it."""
    line = re.search(rf'^"{package}" = \[(.*)\]$', (ROOT / "pyproject.toml").read_text(), re.M).group(1)
    patterns = re.findall(r'"([^"]+)"', line)
    declared = {str(p.resolve().relative_to(ROOT)) for pattern in patterns for p in (ROOT / package).glob(pattern)}
    assert (ROOT / package / folder).resolve() == (ROOT / folder).resolve()
    assert _files_under(folder) and declared == _files_under(folder)


SCRIPT = """
import allfives_env, sys
from allfives_env.agents.registry import make_agent
from allfives_env.arena.benchmark import check_rung_policy, rung_policy_path
from allfives_env.arena.match import run_match
from allfives_env.rules.config import RulesConfig

site = sys.argv[1]
assert allfives_env.__file__.startswith(site), allfives_env.__file__
for n in (2, 3, 4):
    check_rung_policy(n)
    assert rung_policy_path(n).startswith(site), rung_policy_path(n)
assert make_agent("ppo:checkpoints/ppo_4p.pt").num_players == 4
result = run_match(RulesConfig(num_players=2), ["champion", "ppo:checkpoints/ppo_2p.pt"], games=2, seed=3)
print("games", len(result.games))

from training.config import load_config
from training.exploit import exploit_config
assert load_config("configs/ppo_3p.yaml").num_players == 3  # extends base.yaml, found beside it
assert exploit_config("greedy", 4, 1).fixed_opponent == "greedy"
"""


def test_an_installed_wheel_plays_the_shipped_agents_from_any_directory(tmp_path):
    source = tmp_path / "source"
    shutil.copytree(ROOT, source, symlinks=True,
                    ignore=shutil.ignore_patterns(".venv", ".git", "build", "*.egg-info", "__pycache__", "runs",
                                                  "site", ".pytest_cache", ".hypothesis"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    subprocess.run([*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", str(source), "-w",
                    str(tmp_path / "dist")], check=True, cwd=tmp_path)
    wheel = next((tmp_path / "dist").glob("allfives_env-*.whl"))
    site = tmp_path / "site"
    subprocess.run([*pip, "install", "--no-deps", "--no-index", "--target", str(site), str(wheel)], check=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    env = dict(os.environ, PYTHONPATH=str(site))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(site)], cwd=elsewhere, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "games 2" in done.stdout
