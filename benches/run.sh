#!/usr/bin/env bash
# The benchmark command (issue 6, BENCHMARKS.md): sets up the Python
# environments, builds pytest-mcp in release mode and runs benches/perf,
# which generates its inputs under target/bench-inputs/ and prints the
# tables. Arguments go to the harness: --rounds N (default 5; warm: 7),
# --only overhead,runcost,history,report,shards,tokens,loop,server,context,suites,plan,shardrun,shardloop,untimed,warm,coverage,compare
# (compare needs --baseline BIN: an earlier build of pytest-mcp; shards
# measures it on ten files when given).
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
# junitparser, the Python reference of the report throughput table, lives
# in its own venv so the test environment stays exactly requirements-dev.txt.
stamp=.venv-bench/.requirements-installed
if ! { [ -x .venv-bench/bin/python ] && cmp -s requirements-bench.txt "$stamp"; }; then
    echo "bench: creating .venv-bench with requirements-bench.txt" >&2
    "${PYTHON:-python3}" -m venv .venv-bench
    .venv-bench/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-bench.txt
    cp requirements-bench.txt "$stamp"
fi
# The shardloop section: pytest and pytest-split only, as a new user has them.
stamp=.venv-bench-plain/.requirements-installed
if ! { [ -x .venv-bench-plain/bin/python ] && cmp -s requirements-bench-plain.txt "$stamp"; }; then
    echo "bench: creating .venv-bench-plain with requirements-bench-plain.txt" >&2
    "${PYTHON:-python3}" -m venv .venv-bench-plain
    .venv-bench-plain/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-bench-plain.txt
    cp requirements-bench-plain.txt "$stamp"
fi
# The warm section (issue 50): the libraries and test dependencies of its
# three real suites, numpy and pandas, and the MCP SDK that drives the
# server. The largest venv here, so made only when that section runs.
warm=yes
previous=
for a in "$@"; do
    if [ "$previous" = --only ]; then
        case ",$a," in *,warm,*) warm=yes ;; *) warm=no ;; esac
    fi
    previous=$a
done
stamp=.venv-bench-warm/.requirements-installed
if [ "$warm" = yes ] && ! { [ -x .venv-bench-warm/bin/python ] && cmp -s requirements-bench-warm.txt "$stamp"; }; then
    echo "bench: creating .venv-bench-warm with requirements-bench-warm.txt" >&2
    "${PYTHON:-python3}" -m venv .venv-bench-warm
    .venv-bench-warm/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-bench-warm.txt
    cp requirements-bench-warm.txt "$stamp"
fi

# `cargo bench` builds the bench profile (release settings) of both the
# harness and the pytest-mcp binary it measures.
exec cargo bench --bench perf -- "$@"
