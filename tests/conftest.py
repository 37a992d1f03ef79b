"""Shared fixtures; helpers live in tests/support.py."""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # lets test modules `import support`


@pytest.fixture
def rng():
    return np.random.default_rng(12345)
