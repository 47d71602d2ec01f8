#!/usr/bin/env bash
# Runs the bundled example project (examples/demo) under pytest and prints
# pytest-mcp's Markdown report of it. Usage: bash scripts/demo.sh [--format json]
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --quiet --release
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# Both sources of one run, as the runner gathers them: JUnit XML (xunit1 keeps
# file and line) and pytest-json-report. pytest exits 1 here: the demo has
# failing tests on purpose.
(cd examples/demo && ../../.venv/bin/python -m pytest -q -p no:cacheprovider \
    --junitxml="$out/junit.xml" -o junit_family=xunit1 \
    --json-report --json-report-file="$out/report.json" >"$out/pytest.txt" 2>&1) || true
./target/release/pytest-mcp report "$out/report.json" "$out/junit.xml" "$@"
