#!/usr/bin/env bash
# The Python wheel (pyproject.toml) as a user installs it: build it with
# maturin (on cargo's dev profile, reusing the debug build of the demo and
# the test suite: only the binary is relinked; a release's wheels are built
# for release by .github/workflows/release.yml), install it into a fresh
# venv with no index, then check that the installed `pytest-mcp --version`
# prints Cargo.toml's version and (scripts/wheel_check.py) that the
# metadata is pyproject.toml's and every client configuration of the
# README's Install section completes an MCP handshake through the installed
# command; last, the GitHub Action's install step installs this wheel
# (pip pointed at it instead of the index) and its report step runs the
# installed command (tests/action.rs, the test ignored by a plain cargo
# test). Called by scripts/test.sh; needs .venv (scripts/setup.sh).
# Usage: bash scripts/wheel-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

start=$(date +%s%N)
.venv/bin/maturin build --profile dev --locked --out "$work/dist"
built=$(date +%s%N)
wheels=("$work"/dist/*.whl)
if [ "${#wheels[@]}" -ne 1 ] || [ ! -f "${wheels[0]}" ]; then
    echo "wheel-check: FAILED: expected one wheel in $work/dist, found: ${wheels[*]}" >&2
    exit 1
fi
wheel=${wheels[0]}

"$python" -m venv "$work/venv"
"$work/venv/bin/python" -m pip install --quiet --disable-pip-version-check --no-index "$wheel"

version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
got=$("$work/venv/bin/pytest-mcp" --version)
if [ "$got" != "pytest-mcp $version" ]; then
    echo "wheel-check: FAILED: the installed pytest-mcp --version prints '$got', expected 'pytest-mcp $version'" >&2
    exit 1
fi
echo "wheel-check: $(basename "$wheel"), $(wc -c <"$wheel") bytes, built in $(((built - start) / 1000000)) ms; installed: $got"

.venv/bin/python scripts/wheel_check.py "$work/venv"
PYTEST_MCP_WHEEL_DIR="$work/dist" cargo test --quiet --test action -- --ignored
echo "wheel-check: passed in $((($(date +%s%N) - start) / 1000000)) ms"
