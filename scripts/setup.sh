#!/usr/bin/env bash
# Creates .venv (if missing) and installs the package with every extra.
# torch==2.13.0 is named first so pip takes the CPU build (no multi-GB CUDA download).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --disable-pip-version-check "torch==2.13.0" -e ".[train,test,bench,sb3,rllib]"
