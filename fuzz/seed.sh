#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seed inputs (run from anywhere):
#   junit_reader        the shared JUnit corpus (../shared/junit-corpus/, or
#                       $JUNIT_CORPUS) when it is there, the JUnit fixtures
#                       written for this repository (tests/fixtures/junit/, one
#                       per dialect), pytest's JUnit fixtures, the inputs the
#                       golden tests name and their expected JUnit renderings
#   json_report_reader  pytest-json-report fixtures, broken JSON fixtures and
#                       the golden ADR-006 renderings (JSON of another shape)
#   ctrf_reader         the CTRF fixtures (tests/fixtures/ctrf/), broken JSON
#                       fixtures and one pytest-json-report fixture (JSON of
#                       the other shape, which CTRF's sniffing must tell apart)
#   coverage_reader     coverage.xml and coverage.json that pytest-cov writes
#                       for tests/projects/coverage_change (made here when
#                       $PYTHON, default .venv/bin/python, has pytest-cov),
#                       the Python files of tests/projects/*/ and broken
#                       Cobertura and JSON
#   params              handwritten execute_tests / discover_tests arguments,
#                       valid and invalid
# and, for each target, its saved regression inputs (tests/fixtures/fuzz/).
# Files are named by their SHA-1, as libFuzzer names what it adds, so seeding
# twice changes nothing. The corpus directories are git-ignored: nothing from
# the shared corpus is copied into the repository.
set -euo pipefail

fuzz="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$fuzz")"
shared="${JUNIT_CORPUS:-$repo/../shared/junit-corpus}"

add() { # add TARGET FILE...
    local target="$1"
    shift
    mkdir -p "$fuzz/corpus/$target"
    local f
    for f in "$@"; do
        [ -f "$f" ] || continue
        cp "$f" "$fuzz/corpus/$target/$(sha1sum <"$f" | cut -d' ' -f1)"
    done
}

add_text() { # add_text TARGET TEXT
    mkdir -p "$fuzz/corpus/$1"
    printf '%s' "$2" >"$fuzz/corpus/$1/$(printf '%s' "$2" | sha1sum | cut -d' ' -f1)"
}

if [ -d "$shared" ]; then
    add junit_reader "$shared"/*.xml
else
    echo "seed.sh: no shared JUnit corpus at $shared (set JUNIT_CORPUS); seeding without it" >&2
fi
# Files the golden tests read (paths relative to the repository root).
golden_inputs=()
while IFS= read -r line; do
    [ -n "$line" ] && golden_inputs+=("$repo/$line")
done < <(cat "$repo"/golden/*/inputs)
for f in "${golden_inputs[@]}"; do
    case "$f" in
    *.json) add json_report_reader "$f" ;;
    *) add junit_reader "$f" ;;
    esac
done
add junit_reader "$repo"/tests/fixtures/junit/*.xml \
    "$repo"/tests/fixtures/pytest/*/*.xml "$repo"/tests/fixtures/baseline/*.xml \
    "$repo"/golden/*/expected.xml "$repo"/tests/fixtures/broken/not-results.txt
add json_report_reader "$repo"/tests/fixtures/pytest/*/report.json "$repo"/tests/fixtures/broken/*.json \
    "$repo"/golden/*/expected.json
add ctrf_reader "$repo"/tests/fixtures/ctrf/*.json "$repo"/tests/fixtures/broken/*.json \
    "$(ls "$repo"/tests/fixtures/pytest/*/report.json | head -n 1)"
# coverage.py's reports of a real run: tests/projects/coverage_change's
# base with its edit copied over, run under pytest-cov (as its test does).
python="${PYTHON:-$repo/.venv/bin/python}"
if "$python" -c 'import pytest_cov' 2>/dev/null; then
    work="$(mktemp -d)"
    cp -r "$repo"/tests/projects/coverage_change/base/. "$repo"/tests/projects/coverage_change/edit/. "$work"/
    if (cd "$work" && "$python" -m pytest -q -p no:cacheprovider --cov=shop --cov-branch \
        --cov-report=xml:coverage.xml --cov-report=json:coverage.json >/dev/null 2>&1); then
        add coverage_reader "$work"/coverage.xml "$work"/coverage.json
    else
        echo "seed.sh: pytest-cov failed on tests/projects/coverage_change; seeding without its reports" >&2
    fi
    rm -rf "$work"
else
    echo "seed.sh: no pytest-cov in $python (set PYTHON); seeding coverage_reader without fresh reports" >&2
fi
while IFS= read -r -d '' f; do
    add coverage_reader "$f"
done < <(find "$repo"/tests/projects -name '*.py' -not -path '*/__pycache__/*' -print0)
add coverage_reader "$repo"/tests/fixtures/broken/*.json
coverage_broken=(
    ''
    '<'
    '<coverage>'
    '<coverage/>'
    '<?xml version="1.0"?><coverage><packages><package><classes><class filename="pkg/mod.py"><lines><line number="1" hits="1"/>'
    '<coverage><sources><source>/work/p</source></sources><class filename="pkg/mod.py"><line number="2" hits="0"/></class></coverage>'
    '<coverage><class filename="pkg/mod.py"><line number="x" hits="1"/></clas></coverage>'
    '<coverage><!DOCTYPE x [<!ENTITY a "&a;&a;">]><class filename="&a;"/></coverage>'
    '{'
    '{}'
    '{"files": null}'
    '{"files": {"pkg/mod.py": {"executed_lines": [1, 2], "missing_lines": [3]}}'
    '{"files": {"pkg/mod.py": {"executed_lines": [1.5], "missing_lines": [-3]}}}'
    '{"files": {"pkg/mod.py": {"executed_lines": [4294967296]}}}'
    '[{"pkg/mod.py": {"executed_lines": [1]}}]'
)
for b in "${coverage_broken[@]}"; do
    add_text coverage_reader "$b"
done
# The saved regression inputs (tests/fuzz_regressions.rs) of every target.
for target in junit_reader json_report_reader ctrf_reader coverage_reader params; do
    add "$target" "$repo"/tests/fixtures/fuzz/"$target"/*
done

# execute_tests / discover_tests arguments. The fuzz root (pipeline.rs) has
# tests/test_a.py, tests/pkg/test_b.py, a symlink `inside` -> tests and a
# symlink `out` -> /tmp.
params=(
    '{}'
    'null'
    '[]'
    '"tests"'
    '42'
    'not json at all'
    'tests/test_a.py::test_a'
    '{"node_ids": ["tests/test_a.py::test_a", "tests"], "markers": "not slow", "keywords": "a or b", "verbosity": -1, "maxfail": 3, "timeout": 10, "format": "json"}'
    '{"node_ids": ["tests/pkg/test_b.py::TestX::test_b[1-2]"], "failfast": true, "show_capture": false, "format": "markdown"}'
    '{"node_ids": ["inside/test_a.py"]}'
    '{"node_ids": ["out/x"]}'
    '{"node_ids": ["../etc/passwd"]}'
    '{"node_ids": ["/etc/passwd"]}'
    '{"node_ids": ["--pdb"]}'
    '{"node_ids": ["tests/test_a.py\u0000x"]}'
    '{"node_ids": [""]}'
    '{"node_ids": "tests"}'
    '{"node_ids": [1, null]}'
    '{"markers": "-p evil"}'
    '{"markers": "  --co"}'
    '{"keywords": "a\nb"}'
    '{"keywords": " "}'
    '{"verbosity": 10}'
    '{"verbosity": 1.5}'
    '{"verbosity": -9223372036854775808}'
    '{"maxfail": 0}'
    '{"maxfail": 4294967296}'
    '{"maxfail": 18446744073709551615}'
    '{"failfast": true, "maxfail": 2}'
    '{"failfast": "yes"}'
    '{"timeout": 0}'
    '{"timeout": 86400}'
    '{"timeout": 1e308}'
    '{"format": "xml"}'
    '{"extra_args": ["-p", "evil"]}'
    '{"path": "tests", "pattern": "test_*.py"}'
    '{"path": "tests/pkg", "format": "json"}'
    '{"path": "../x"}'
    '{"path": "-x"}'
    '{"path": "out"}'
    '{"pattern": "a/b*.py"}'
    '{"pattern": "--co"}'
    '{"pattern": "   "}'
    '{"timeout": 5, "path": "tests"}'
    '{"path": "tests/\u00e9\u202e.py"}'
)
for p in "${params[@]}"; do
    add_text params "$p"
done
# Longer than the 4,096 characters a value may have.
add_text params "{\"markers\": \"$(printf 'a%.0s' {1..4097})\"}"

for d in "$fuzz"/corpus/*/; do
    echo "$(basename "$d"): $(find "$d" -type f | wc -l) files"
done
