#!/usr/bin/env bash
# Creates .venv (if missing) and installs the package with the extras the tests and the main job use
# (training, tests, docs, benchmarks, SB3, RLlib, OpenSpiel, the browser app), and the Chromium the browser tests
# drive. Env-only users need none of them: `pip install -e .`
#
# TORCH_INDEX_URL: the wheel index torch is taken from. Unset, pip's own index is used (on the project's
# machines it serves the CPU build of torch 2.13.0 from local wheels). Elsewhere, without a GPU, use
#   TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu bash scripts/setup.sh
# (PyPI's default torch is the CUDA build, with about 20 nvidia-* packages).
set -euo pipefail
cd "$(dirname "$0")/.."
TORCH="torch==2.13.0"
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
pip=(.venv/bin/python -m pip install -q --disable-pip-version-check)
if [ -n "${TORCH_INDEX_URL:-}" ]; then
  "${pip[@]}" --index-url "$TORCH_INDEX_URL" "$TORCH"
fi
# torch is named first so that pip settles it before the extras could pull another build
"${pip[@]}" "$TORCH" -e ".[train,test,docs,bench,sb3,rllib,openspiel,web]"
# The browser tests drive a real Chromium (Debian's chromium and chromium-driver). Installed here when
# missing and apt-get can be used (as root, or with sudo that needs no password); otherwise say what is needed.
if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
  apt=()  # env passes DEBIAN_FRONTEND through sudo, which would drop it
  if [ "$(id -u)" = 0 ]; then apt=(env DEBIAN_FRONTEND=noninteractive apt-get)
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
    apt=(sudo -n env DEBIAN_FRONTEND=noninteractive apt-get)
  fi
  if command -v apt-get >/dev/null && [ ${#apt[@]} -gt 0 ]; then
    # the install waits up to 5 minutes for another dpkg to finish (apt-get update does not wait); a failure
    # leaves the Python set-up done and says so (set -e would end the script, and the README's `setup.sh && ...`)
    if ! { "${apt[@]}" update -qq &&
           "${apt[@]}" -o DPkg::Lock::Timeout=300 install -y -qq chromium chromium-driver >/dev/null; }; then
      echo "note: apt-get could not install chromium and chromium-driver (see above); the Python set-up is done," >&2
      echo "      but the browser tests need them: install them, or set CHROMIUM and CHROMEDRIVER to their paths" >&2
    fi
  else
    echo "note: the browser tests need Chromium and ChromeDriver (Debian: apt-get install chromium chromium-driver;" >&2
    echo "      elsewhere set CHROMIUM and CHROMEDRIVER to their paths)" >&2
  fi
fi
