"""The layers import one way and no package imports in a cycle (import-linter contracts in pyproject.toml)."""

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_import_contracts_hold():
    proc = subprocess.run([sys.executable, "-c", "import sys; from importlinter.cli import lint_imports; "
                           "sys.exit(lint_imports(no_cache=True, no_logo=True))"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "BROKEN" not in proc.stdout and proc.stdout.count("KEPT") == 4


def test_the_library_loads_without_the_trainer_or_torch():
    """An env-only user imports the env, the vector env, the agents and the arena without torch
    (a policy file needs it only when loaded) and without the training package."""
    code = ("import sys, allfives_env, allfives_env.vector, allfives_env.agents, allfives_env.arena, allfives_env.cli; "
            "bad = [m for m in ('torch', 'training') if m in sys.modules]; print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def layers_from_top() -> list:
    """The layers contract of pyproject.toml, top first: each a list of its sibling packages."""
    text = (ROOT / "pyproject.toml").read_text()  # read by hand: tomllib is Python 3.11+, the package 3.10+
    block = re.search(r'type = "layers"\s*layers = \[(.*?)\]', text, re.S).group(1)
    return [[name.strip() for name in layer.split("|")] for layer in re.findall(r'"([^"]+)"', block)]


def test_no_layer_names_a_higher_one_in_a_string():
    """A module path in a string (importlib, a registry table) is an import the contracts cannot see:
    a lower layer reaches a higher one only through an entry point (the agents' ``openspiel``)."""
    layers = layers_from_top()
    found = []
    for depth, layer in enumerate(layers):
        higher = [name for above in layers[:depth] for name in above]
        for package in layer:
            folder = ROOT / package.replace(".", "/")
            files = sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]
            for path in files:
                text = path.read_text()
                found += [f"{path.relative_to(ROOT)}: {name}" for name in higher
                          if re.search(rf"[\"']{re.escape(name)}[\"'.:]", text)]  # a module path, not a word
    assert layers[0] == ["training"] and layers[-1] == ["allfives_env.rules"] and not found
