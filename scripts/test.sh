#!/usr/bin/env bash
# The whole test suite, as CI runs it (.ci/run: the demo, then this), on a
# fresh clone in about 15 minutes on two cores; docs/development.md says
# where the time goes. In order:
#
# 1. Side by side: the test dependencies (scripts/setup.sh: .venv with
#    requirements-dev.txt, .venv-nojson, the plugin matrix's venvs,
#    Debian's chromium, the sdists of requirements-suites.txt, npm's ctrf
#    and the TypeScript MCP SDK), which mostly wait on the network, and
#    cargo: clippy, rustfmt, then every test target built once (cargo test
#    --no-run, on the debug build the demo made when CI ran it first; the
#    wheel and the sdist are built on the same dev profile: nothing is
#    compiled for release).
# 2. Every test binary, the ignored tests (the MCP load tests, the
#    5,000-case discovery, the packaged crate built, the exhaustive split
#    read), the wheel (scripts/wheel-check.sh) and the sdist
#    (scripts/sdist-check.sh), as jobs, PYTEST_MCP_TEST_JOBS (default 3) at
#    a time, the longest first, in two phases: first the packaging (the
#    wheel, the sdist and the packaged crate, which rebuild the binary in
#    place) beside the tests that never start the binary, then the rest
#    (scripts/test_jobs.py lists them). Each binary runs as `cargo test`
#    runs it (its package's folder, its own tests on a thread per core);
#    its output is printed whole when it ends.
# 3. One line totalling the tests ("N passed, M failed") and a line per
#    job with its time.
#
# Usage: bash scripts/test.sh
# The quick check after an edit (cargo only, under a minute): scripts/check.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

export PYTEST_MCP_TEST_PYTHON="$PWD/.venv/bin/python"
# One build, never resumed: incremental caches would only take disk.
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"
jobs_at_once=${PYTEST_MCP_TEST_JOBS:-3}
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
start=$(date +%s)
elapsed() { echo "$(($(date +%s) - start)) s"; }

# 1. Set-up (network, pip, apt, npm) beside the builds (CPU).
bash scripts/setup.sh >"$logs/setup.out" 2>&1 &
setup_pid=$!
cargo clippy --workspace --all-targets -- -D warnings
cargo fmt --all --check
cargo test --workspace --all-targets --no-run --message-format=json-render-diagnostics \
    >"$logs/build.json"
echo "test: built in $(elapsed)" >&2
if ! wait "$setup_pid"; then
    cat "$logs/setup.out" >&2
    echo "test: scripts/setup.sh failed" >&2
    exit 1
fi
cat "$logs/setup.out" >&2
echo "test: set up and built in $(elapsed)" >&2

# 2. The jobs: "phase<TAB>name<TAB>folder<TAB>command", by phase, then the
# longest first (the order of a run on two cores; an unlisted binary goes
# after them).
python3 scripts/test_jobs.py "$logs/build.json" >"$logs/jobs.tsv"

declare -A job_of=()
failed_jobs=()
finish() { # PID: print the finished job's output and time
    local name=${job_of[$1]}
    local rc secs
    read -r rc secs <"$logs/$name.rc"
    cat "$logs/$name.out"
    echo "test: job $name: exit $rc in $secs s" | tee -a "$logs/times"
    if [ "$rc" -ne 0 ]; then failed_jobs+=("$name"); fi
    unset "job_of[$1]"
}
phase=1
while IFS=$'\t' read -r job_phase name dir cmd; do
    # Phase 2 starts when phase 1 (the packaging and the in-process
    # tests) has ended: the packaging rewrites the binary phase 2 runs.
    if [ "$job_phase" != "$phase" ]; then
        while [ "${#job_of[@]}" -gt 0 ]; do
            wait -n -p done_pid || true
            finish "$done_pid"
        done
        phase=$job_phase
    fi
    while [ "${#job_of[@]}" -ge "$jobs_at_once" ]; do
        wait -n -p done_pid || true
        finish "$done_pid"
    done
    (
        began=$(date +%s)
        rc=0
        (cd "$dir" && eval "$cmd") >"$logs/$name.out" 2>&1 || rc=$?
        echo "$rc $(($(date +%s) - began))" >"$logs/$name.rc"
    ) &
    job_of[$!]=$name
done <"$logs/jobs.tsv"
while [ "${#job_of[@]}" -gt 0 ]; do
    wait -n -p done_pid || true
    finish "$done_pid"
done

# 3. Sum the "test result: ok. N passed; M failed" lines of every binary.
cat "$logs"/*.out | awk '/^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
     END { printf "%d passed, %d failed\n", p, f }' >"$logs/total"
echo "test: whole suite in $(elapsed), jobs by time:" >&2
sort -k7,7nr "$logs/times" >&2
if [ "${#failed_jobs[@]}" -gt 0 ]; then
    echo "test: FAILED: ${failed_jobs[*]}" >&2
    cat "$logs/total"
    exit 1
fi
cat "$logs/total"
