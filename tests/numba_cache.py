"""The tests' numba cache folder (imported by conftest.py before numba: it imports nothing of the package)."""

import hashlib
import shutil
from pathlib import Path

#: the sources whose every byte names the cache: numba kernels live in both
SOURCE_FOLDERS = ("allfives_env", "training")
CACHE_ROOT = ".numba_cache"


def numba_cache_folder(repo: Path) -> Path:
    """``repo/.numba_cache/<hash of every .py file under SOURCE_FOLDERS>``; folders of other hashes
    (sources since edited) are removed."""
    digest = hashlib.sha256()
    for folder in SOURCE_FOLDERS:
        for path in sorted((repo / folder).rglob("*.py")):
            digest.update(str(path.relative_to(repo)).encode() + b"\0" + path.read_bytes() + b"\0")
    root = repo / CACHE_ROOT
    current = root / digest.hexdigest()[:16]
    if root.is_dir():
        for old in root.iterdir():
            if old != current:
                shutil.rmtree(old, ignore_errors=True)  # another test worker may be removing it too
    return current
