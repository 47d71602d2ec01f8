#!/usr/bin/env bash
# The sdist (pyproject.toml, maturin) as a user with only Rust installs it:
# build it, check it ships the licences and the sources the build needs,
# install it into a fresh venv with pip (which builds the binary with
# cargo through maturin, fetched as the sdist's build requirement), then
# run the installed command: `--version` is Cargo.toml's and an MCP
# handshake answers (scripts/smoke.py). Cargo reuses this checkout's
# target/ (or the CARGO_TARGET_DIR it was given) and its dev profile
# (MATURIN_PEP517_ARGS), so only the crate itself is compiled again, on the
# debug build the test suite made.
# Called by scripts/test.sh; needs .venv (scripts/setup.sh).
# Usage: bash scripts/sdist-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."

python=${PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
start=$(date +%s%N)

.venv/bin/maturin sdist --out "$work/sdist" >/dev/null
sdists=("$work"/sdist/*.tar.gz)
if [ "${#sdists[@]}" -ne 1 ] || [ ! -f "${sdists[0]}" ]; then
    echo "sdist-check: FAILED: expected one sdist in $work/sdist, found: ${sdists[*]}" >&2
    exit 1
fi
sdist=${sdists[0]}
listing=$(tar -tzf "$sdist")
for needed in LICENSE-MIT LICENSE-APACHE pyproject.toml Cargo.toml Cargo.lock \
    src/main.rs src/runner/command/pytest_mcp_events.py src/runner/command/pytest_mcp_attempts.py \
    src/runner/command/pytest_mcp_measure.py \
    templates/report.html; do
    if ! grep -q "^[^/]*/$needed\$" <<<"$listing"; then
        echo "sdist-check: FAILED: $(basename "$sdist") lacks $needed" >&2
        exit 1
    fi
done
if grep -qE '^[^/]*/(tests|golden|benches|fuzz)/' <<<"$listing"; then
    echo "sdist-check: FAILED: $(basename "$sdist") ships tests, goldens or benches:" >&2
    grep -E '^[^/]*/(tests|golden|benches|fuzz)/' <<<"$listing" | head >&2
    exit 1
fi

"$python" -m venv "$work/venv"
CARGO_TARGET_DIR="$(realpath -m "${CARGO_TARGET_DIR:-target}")" MATURIN_PEP517_ARGS="--profile dev" \
    "$work/venv/bin/python" -m pip install --quiet \
    --disable-pip-version-check "$sdist"
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' Cargo.toml | head -n 1)
"$python" scripts/smoke.py "$work/venv/bin/pytest-mcp" "$version"
echo "sdist-check: $(basename "$sdist"), $(wc -c <"$sdist") bytes, $(wc -l <<<"$listing") files; built, installed and checked in $((($(date +%s%N) - start) / 1000000)) ms"
