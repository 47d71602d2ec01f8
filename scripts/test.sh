#!/usr/bin/env bash
# The whole test suite, as CI runs it: the test dependencies (scripts/setup.sh:
# .venv with requirements-dev.txt, .venv-nojson, Debian's chromium for the
# HTML test, the sdists of requirements-suites.txt in .suites), then clippy,
# rustfmt, cargo test (unit, golden, corpus, pytest agreement, token budget,
# real suites, ...), then the load and scale tests
# (tests/mcp_load.rs, the 5,000-case test of tests/discovery.rs: ignored by
# a plain `cargo test`, run here with --ignored), then the Python wheel
# (scripts/wheel-check.sh: built, installed into a fresh venv, the installed
# command's --version and an MCP handshake per README client configuration),
# the packaged crate built (tests/release.rs, ignored) and the sdist
# (scripts/sdist-check.sh: built, installed with pip into a fresh venv,
# --version and an MCP handshake).
# Ends with one line totalling cargo's test results.
# Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
export PYTEST_MCP_TEST_PYTHON="$PWD/.venv/bin/python"
# One build, never resumed: incremental caches would only take disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
cargo clippy --workspace --all-targets -- -D warnings
cargo fmt --all --check
cargo test --all-targets 2>&1 | tee "$log"
cargo test --test mcp_load --test discovery --test release -- --ignored 2>&1 | tee -a "$log"
bash scripts/wheel-check.sh 2>&1 | tee -a "$log"
bash scripts/sdist-check.sh 2>&1 | tee -a "$log"
# Sum the "test result: ok. N passed; M failed" lines of every test binary.
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' "$log"
