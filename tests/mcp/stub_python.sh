#!/bin/sh
# A stand-in for the project's `python`, for the 1000-call load test
# (test_load.py): it answers pytest-mcp's interpreter probe and, for
# `-m pytest ...`, writes what a small pytest run leaves behind - JUnit XML
# at --junitxml, the event log at $PYTEST_MCP_EVENTS, pytest's counts line -
# in a few milliseconds instead of pytest's few hundred. Every call still
# goes through the server's whole path: validation, the probe and the run as
# real processes in their own process group, the private temporary
# directory, bounded capture, parsing, merging, rendering and clean-up.
#
# The run has three tests in tests/test_stub.py: test_one and test_two pass,
# test_<keyword> fails, where <keyword> is the -k value (so each answer can
# be checked against its own request). Exit status 1, as pytest's.
# With --collect-only it lists the same three items and exits 0.

case "$1" in
-c)
    echo "pytest True json False"
    exit 0
    ;;
esac

junit=""
keyword="k"
collect=""
prev=""
for arg in "$@"; do
    case "$prev" in
    -k) keyword="$arg" ;;
    esac
    case "$arg" in
    --junitxml=*) junit="${arg#--junitxml=}" ;;
    --collect-only) collect=1 ;;
    esac
    prev="$arg"
done

file="tests/test_stub.py"
if [ -n "$collect" ]; then
    if [ -n "$PYTEST_MCP_EVENTS" ]; then
        {
            echo '{"event": "collected", "count": 3}'
            for name in one two "$keyword"; do
                printf '{"event": "item", "nodeid": "%s::test_%s", "file": "%s", "line": 1, "module": "tests.test_stub", "class": null, "function": "test_%s"}\n' "$file" "$name" "$file" "$name"
            done
        } >>"$PYTEST_MCP_EVENTS"
    fi
    printf '%s::test_one\n%s::test_two\n%s::test_%s\n\n3 tests collected in 0.01s\n' "$file" "$file" "$file" "$keyword"
    exit 0
fi

if [ -n "$junit" ]; then
    cat >"$junit" <<XML
<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest" errors="0" failures="1" skipped="0" tests="3" time="0.010"><testcase classname="tests.test_stub" name="test_one" file="$file" line="0" time="0.001" /><testcase classname="tests.test_stub" name="test_two" file="$file" line="3" time="0.001" /><testcase classname="tests.test_stub" name="test_$keyword" file="$file" line="6" time="0.002"><failure message="assert 1 == 2">def test_$keyword():
&gt;       assert 1 == 2
E       assert 1 == 2

$file:8: AssertionError</failure></testcase></testsuite></testsuites>
XML
fi
echo "============================= test session starts =============================="
echo "collected 3 items"
echo ""
echo "$file ..F"
echo "========================= 1 failed, 2 passed in 0.01s =========================="
exit 1
