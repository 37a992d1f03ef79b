"""The layers import one way and no package imports in a cycle (import-linter contracts in pyproject.toml)."""

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


#: Each layer below the top and the modules above it (the order of the layers contract in pyproject.toml).
HIGHER_LAYERS = {
    "rules": ("compiled", "env", "vector", "agents", "arena", "play", "integrations", "cli"),
    "compiled": ("env", "vector", "agents", "arena", "play", "integrations", "cli"),
    "env": ("agents", "arena", "play", "integrations", "cli"),
    "vector": ("agents", "arena", "play", "integrations", "cli"),
    "agents": ("arena", "play", "integrations", "cli"),
    "arena": ("play", "integrations", "cli"),
}


def test_no_layer_names_a_higher_one_in_a_string():
    """A module path in a string (importlib, a registry table) is an import the contracts cannot see:
    a lower layer reaches a higher one only through an entry point (the agents' ``openspiel``)."""
    found = []
    for layer, higher in HIGHER_LAYERS.items():
        names = [f"allfives_env.{h}" for h in higher] + ["training."]
        for path in sorted((ROOT / "allfives_env" / layer).rglob("*.py")):
            text = path.read_text()
            found += [f"{path.relative_to(ROOT)}: {name}" for name in names
                      if f'"{name}' in text or f"'{name}" in text]
    assert not found
