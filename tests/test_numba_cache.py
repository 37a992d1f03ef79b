"""The tests' numba cache is named by every package source, so an edit in one file recompiles the
kernels of another that use it (numba itself checks only a kernel's own file)."""

import os

import numba
from numba_cache import numba_cache_folder


def _tree(tmp_path, rules_text):
    for name, text in {"allfives_env/compiled/rules.py": rules_text, "allfives_env/compiled/step.py": "B = 1\n",
                       "training/loop.py": "C = 1\n"}.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)


def test_an_edit_in_any_source_names_a_new_folder_and_the_old_one_goes(tmp_path):
    _tree(tmp_path, "DRAW = 112\n")
    first = numba_cache_folder(tmp_path)
    first.mkdir(parents=True)
    assert numba_cache_folder(tmp_path) == first and first.parent == tmp_path / ".numba_cache"
    _tree(tmp_path, "DRAW = 113\n")
    second = numba_cache_folder(tmp_path)
    assert second != first and not first.exists()
    (tmp_path / "training" / "loop.py").write_text("C = 2\n")
    assert numba_cache_folder(tmp_path) not in (first, second)


def test_numba_reads_the_folder_the_suite_set_before_it_was_imported():
    assert os.environ["NUMBA_CACHE_DIR"] and numba.config.CACHE_DIR == os.environ["NUMBA_CACHE_DIR"]
