"""Shared fixtures; helpers live in tests/support.py."""

import os
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # lets test modules `import support`

from numba_cache import numba_cache_folder  # noqa: E402  (found through the path above)

# numba reuses a cached kernel until its own file changes, even when a function or constant it takes
# from another file did (an edit to compiled/rules.py left step.py's kernels as they were, and the tests
# passed on the old rules). The tests keep their cache in a folder named by every package source, so an
# edit anywhere compiles afresh. Set before numba is imported; a NUMBA_CACHE_DIR of your own is kept.
if "NUMBA_CACHE_DIR" not in os.environ:
    os.environ["NUMBA_CACHE_DIR"] = str(numba_cache_folder(Path(__file__).parent.parent))


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
