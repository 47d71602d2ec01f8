#!/usr/bin/env bash
# Runs the bundled example project (examples/demo) with `pytest-mcp run` and
# prints its Markdown report. Extra arguments go to `pytest-mcp run`, e.g.
#   bash scripts/demo.sh --format json
#   bash scripts/demo.sh tests/test_cart.py::test_empty_cart_total_is_zero
# It sets up only what the run needs: .venv with pytest and pytest-json-report
# (scripts/setup.sh --demo); the test suite's extras come with scripts/test.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh --demo
# A debug build: the demo's nine tests need no optimiser, and the test
# suite (scripts/test.sh) then builds on the same artifacts instead of
# compiling everything a second time for release.
cargo build --quiet
status=0
"${CARGO_TARGET_DIR:-target}/debug/pytest-mcp" run --root examples/demo --python .venv/bin/python "$@" || status=$?
# The demo has failing tests on purpose: pytest's exit status 1 is the
# expected outcome here; anything else is a real problem.
if [ "$status" -ne 0 ] && [ "$status" -ne 1 ]; then
    echo "demo: pytest-mcp run exited with status $status" >&2
    exit "$status"
fi
