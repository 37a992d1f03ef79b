"""The package installed from a wheel (``pip install .``, ``pip install git+URL``) carries the shipped
policy files and configs, so the agents that load them (``ppo:checkpoints/...``, ``champion``), the
benchmark's ladder and the trainer's configs work outside a source checkout too."""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("package, folder", [("allfives_env", "checkpoints"), ("training", "configs")])
def test_the_wheel_declares_every_shipped_file(package, folder):
    """The shipped files live in the package (the root's folder links there), and its package data patterns
    name every one of them and nothing else (a new shipped file cannot be left out of the wheel, and a
    file a user saves there, which git does not track, is not carried into one)."""
    line = re.search(rf'^"{package}" = \[(.*?)\]$', (ROOT / "pyproject.toml").read_text(), re.M | re.S).group(1)
    patterns = re.findall(r'"([^"]+)"', line)
    declared = {p for pattern in patterns for p in (ROOT / package).glob(pattern)}
    shipped = _tracked_files(ROOT / package / folder)
    assert (ROOT / folder).resolve() == (ROOT / package / folder)
    assert shipped and declared == shipped


def _tracked_files(folder) -> set:
    """The files git tracks in ``folder`` (every file there where it is not a git checkout, e.g. an sdist)."""
    listed = subprocess.run(["git", "ls-files", "-z", "--", str(folder)], cwd=ROOT, capture_output=True)
    if listed.returncode != 0 or not listed.stdout:
        return {p for p in folder.rglob("*") if p.is_file()}
    return {ROOT / name for name in listed.stdout.decode().split("\0") if name}


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


def _copy_checkout(destination):
    """The files git would clone (tracked, and new ones not ignored), links kept as links; outside a git
    checkout (an unpacked archive), the tree without caches and run outputs."""
    listing = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                             capture_output=True)
    if listing.returncode != 0:
        shutil.copytree(ROOT, destination, symlinks=True, ignore=shutil.ignore_patterns(
            ".venv", "build", "*.egg-info", "__pycache__", "runs", "site", ".pytest_cache", ".hypothesis"))
        return
    listed = listing.stdout.decode().split("\0")
    for name in filter(None, listed):
        source, target = ROOT / name, destination / name
        if not os.path.lexists(source):  # deleted in the working tree
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            os.symlink(os.readlink(source), target)
        else:
            shutil.copy2(source, target)


def test_an_installed_wheel_plays_the_shipped_agents_from_any_directory(tmp_path):
    """Built from a checkout whose links are plain text files (Git for Windows without symlinks), so
    the wheel cannot depend on following them."""
    source = tmp_path / "source"
    _copy_checkout(source)
    for link in ("checkpoints", "configs"):
        target = os.readlink(source / link)
        (source / link).unlink()
        (source / link).write_text(target)
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q"]
    # offline with the environment's own setuptools; where it has none (Python 3.12 venvs), pip fetches it
    isolation = ["--no-build-isolation", "--no-index"] if importlib.util.find_spec("setuptools") else []
    subprocess.run([*pip, "wheel", "--no-deps", *isolation, str(source), "-w", str(tmp_path / "dist")], check=True,
                   cwd=tmp_path)
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
