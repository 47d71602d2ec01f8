#!/usr/bin/env bash
# The whole test suite, as CI runs it: Python test dependencies, then
# cargo test (unit, golden, corpus, pytest agreement, token budget), clippy
# and rustfmt. Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
export PYTEST_MCP_TEST_PYTHON="$PWD/.venv/bin/python"
cargo test --all-targets
cargo clippy --all-targets -- -D warnings
cargo fmt --check
