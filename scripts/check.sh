#!/usr/bin/env bash
# The quick check, for a maintainer's loop after an edit: rustfmt, the unit
# tests (src/), every golden test and the architecture tests. No Python, no
# venv, no browser, no npm: only cargo. The whole suite, as CI runs it, is
# scripts/test.sh.
#
#   bash scripts/check.sh                   the check
#   UPDATE_GOLDEN=1 bash scripts/check.sh   rewrite every expected text (the
#                                           goldens under golden/, which the
#                                           Python and TypeScript MCP tests
#                                           read too), then review git diff
#
# Which test binary covers what, and how long this takes on a fresh clone
# and after a one-line edit: docs/development.md, "The quick check".
set -euo pipefail
cd "$(dirname "$0")/.."

start=$(date +%s)
if [ -z "${UPDATE_GOLDEN:-}" ]; then
    cargo fmt --all --check
fi
# The test binaries of the check: each golden test, and the architecture's.
# tests/docs.rs checks that this list names every *golden*.rs test file.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
cargo test --lib \
    --test golden \
    --test changes_golden \
    --test coverage_golden \
    --test endings_golden \
    --test history_golden \
    --test headlines_golden \
    --test tools_list \
    --test architecture \
    2>&1 | tee "$log" || status=$?
awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "check: %d passed, %d failed", p, f }' "$log"
echo " in $(($(date +%s) - start)) s"
exit "$status"
