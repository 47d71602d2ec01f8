#!/usr/bin/env bash
# Creates ./.venv with the pinned Python packages the tests and the demo need
# (requirements-dev.txt), and ./.venv-nojson with pytest alone (the runner's
# tests need a project interpreter without pytest-json-report). Safe to run
# again: it reinstalls only when the requirements changed. Needs python3
# (3.11 or newer) with venv and pip.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian's Chromium renders the HTML report in tests/html.rs. Installed when
# missing and we may (root with apt-get, as in CI); otherwise that test says
# how to install it, or set PYTEST_MCP_SKIP_CHROMIUM=1.
if ! command -v chromium >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "setup: installing Debian's chromium (for the HTML report test)" >&2
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

python=${PYTHON:-python3}
stamp=.venv/.requirements-installed
if [ -x .venv/bin/python ] && [ -f "$stamp" ] && cmp -s requirements-dev.txt "$stamp" \
    && [ -x .venv-nojson/bin/python ] && [ -f .venv-nojson/.installed ]; then
    exit 0
fi
echo "setup: creating .venv with $($python --version 2>&1) and requirements-dev.txt" >&2
"$python" -m venv .venv
.venv/bin/python -m pip install --quiet --disable-pip-version-check --upgrade pip
.venv/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-dev.txt
cp requirements-dev.txt "$stamp"
pytest_pin=$(grep -E '^pytest==' requirements-dev.txt)
"$python" -m venv .venv-nojson
.venv-nojson/bin/python -m pip install --quiet --disable-pip-version-check "$pytest_pin"
touch .venv-nojson/.installed
