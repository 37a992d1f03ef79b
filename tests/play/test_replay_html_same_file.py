"""`allfives replay RECORD --html OUT`: OUT must not be the record file itself (the page would replace the
game it shows). The same file named another way (a relative name, ``./``, a symlink) is the same file:
the check compares real paths, and refuses in one line before anything is written (issue 23)."""

import os

import pytest
from support import run_cli


@pytest.fixture
def record_named_html(tmp_path, capsys):
    """A real one-game record file whose name ends in .html (so the name check alone lets it through)."""
    assert run_cli(capsys, "eval", "--agents", "greedy", "random", "--games", "1", "--records",
                str(tmp_path / "g.jsonl"), "--no-progress")[0] == 0
    path = tmp_path / "g.html"
    path.write_bytes((tmp_path / "g.jsonl").read_bytes())
    return path


@pytest.mark.parametrize("spelling", ["relative", "dot", "symlink"])
def test_the_record_file_under_another_name_is_refused(capsys, tmp_path, monkeypatch, record_named_html, spelling):
    monkeypatch.chdir(tmp_path)
    if spelling == "symlink":
        os.symlink(record_named_html, tmp_path / "link.html")
    html = {"relative": "g.html", "dot": "./g.html", "symlink": "link.html"}[spelling]
    before = record_named_html.read_bytes()
    status, out, err = run_cli(capsys, "replay", str(record_named_html), "--html", html)
    assert status == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "is the record file itself" in lines[0], err
    assert record_named_html.read_bytes() == before  # the record is kept as it was
