"""The documentation: the mkdocs site builds with --strict, and the README stays short, linked and true.

``mkdocs build --strict`` fails on any warning: a broken link or anchor between
pages, a page missing from the nav, a docstring mkdocstrings cannot render. The
README tests check its size, that it gives the two commands, that every
relative link in it names a file that exists, and that every ```python block in
it runs (a block whose first line is ``# not run`` is skipped: keep that for
code that needs a terminal).
"""

import importlib.util
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
README_MAX_CHARS = 15_000

TWO_COMMANDS = (
    "bash scripts/setup.sh && .venv/bin/allfives train --config configs/ppo_2p.yaml",
    "bash scripts/setup.sh && .venv/bin/python -m pytest -q -n 2",
)

# [text](target) and ![alt](target); the target ends at whitespace or ")"; an optional "title" may follow.
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# [text]: target  (reference-style definitions)
REFERENCE_LINK = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$", re.MULTILINE)
FENCE = re.compile(r"^(```|~~~).*?^\1", re.MULTILINE | re.DOTALL)
PYTHON_BLOCK = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
NOT_RUN = "# not run"
BLOCK_TIMEOUT_S = 120


def _require(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.fail(
            f"{module!r} is not installed, so the docs site cannot be built: "
            f"{sys.executable} -m pip install mkdocs-material 'mkdocstrings[python]'",
            pytrace=False,
        )


def test_mkdocs_build_strict(tmp_path):
    for module in ("mkdocs", "material", "mkdocstrings", "mkdocstrings_handlers.python"):
        _require(module)
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1")  # mkdocs-material's end-of-life banner
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600,
    )
    if proc.returncode != 0:
        print(proc.stdout)
        print(proc.stderr, file=sys.stderr)
    assert proc.returncode == 0, f"mkdocs build --strict failed (exit {proc.returncode}):\n{proc.stderr}"
    assert (tmp_path / "site" / "index.html").is_file()


def _readme_links(text: str) -> list:
    prose = FENCE.sub("", text)  # links inside code blocks are code, not links
    prose = re.sub(r"`[^`\n]*`", "", prose)
    return MARKDOWN_LINK.findall(prose) + REFERENCE_LINK.findall(prose)


def _is_relative(target: str) -> bool:
    return not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) and not target.startswith(("#", "/"))


def test_readme_is_short():
    text = README.read_text(encoding="utf-8")
    assert len(text) <= README_MAX_CHARS, f"README.md has {len(text)} characters; at most {README_MAX_CHARS}"


def test_readme_gives_the_two_commands():
    text = README.read_text(encoding="utf-8")
    for command in TWO_COMMANDS:
        assert command in text, f"README.md lacks the command {command!r}"


def test_readme_links_resolve():
    text = README.read_text(encoding="utf-8")
    links = _readme_links(text)
    assert links, "found no links in README.md (the link pattern is broken?)"
    missing = []
    for target in links:
        if not _is_relative(target):
            continue
        path = target.split("#", 1)[0].split("?", 1)[0]
        if path and not (ROOT / path).exists():
            missing.append(target)
    assert not missing, f"README.md links to files that do not exist: {missing}"


def test_link_parser_sees_what_it_should():
    sample = (
        "See [the rules](docs/rules.md#variants) and ![a plot](docs/plots/x.png \"title\").\n"
        "[web](https://example.org) [anchor](#two-commands)\n"
        "```bash\n[not a link](nowhere.md)\n```\n"
        "`[code](nowhere2.md)`\n"
        "[ref]: docs/index.md\n"
    )
    links = _readme_links(sample)
    assert links == ["docs/rules.md#variants", "docs/plots/x.png", "https://example.org", "#two-commands",
                     "docs/index.md"]
    assert [t for t in links if _is_relative(t)] == ["docs/rules.md#variants", "docs/plots/x.png", "docs/index.md"]


def _python_blocks(text: str) -> list:
    return PYTHON_BLOCK.findall(text)


README_BLOCKS = _python_blocks(README.read_text(encoding="utf-8"))


def test_readme_has_python_examples():
    assert README_BLOCKS, "found no ```python blocks in README.md (the block pattern is broken?)"


@pytest.mark.parametrize("index", range(len(README_BLOCKS)), ids=lambda i: f"block{i}")
def test_readme_python_block_runs(index, tmp_path):
    """Each block runs alone, from the repository root (as the README's commands do), within the timeout."""
    code = README_BLOCKS[index]
    first = code.lstrip().splitlines()[0] if code.strip() else ""
    if first.strip().startswith(NOT_RUN):
        pytest.skip(f"README.md python block {index} is marked {NOT_RUN!r}")
    script = tmp_path / f"readme_block{index}.py"
    script.write_text(code, encoding="utf-8")
    try:
        proc = subprocess.run([sys.executable, str(script)], cwd=ROOT, capture_output=True, text=True,
                              timeout=BLOCK_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"README.md python block {index} ran past {BLOCK_TIMEOUT_S} s:\n{code}", pytrace=False)
    assert proc.returncode == 0, (f"README.md python block {index} failed (exit {proc.returncode}):\n{code}\n"
                                  f"--- stderr ---\n{proc.stderr[-4000:]}")


def test_block_parser_sees_what_it_should():
    sample = (
        "```python\nprint(1)\n```\n"
        "```bash\necho no\n```\n"
        "```python\n# not run\ninput()\n```\n"
        "```pycon\n>>> 1\n```\n"
    )
    assert _python_blocks(sample) == ["print(1)\n", "# not run\ninput()\n"]
