"""`pytest-mcp serve` driven through a real MCP client, the MCP Python SDK.

Every test starts the real binary over stdio with the SDK's stdio_client
and ClientSession, against copies of the projects in tests/projects (or a
small project written here), with the real interpreter. Expected counts come
from plain pytest runs of the same projects, not from numbers written here.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import (
    BIN,
    HANDSHAKE,
    KILL_GRACE,
    MODERN,
    PYTHON,
    alive,
    figure,
    headline_of,
    processes_in,
    recorded_pids,
    structured_of,
    summary_of,
    wait_for_file,
    wait_until_gone,
)
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult, Request

pytestmark = pytest.mark.anyio

# The --kill-grace of the test servers: time a process group gets between
# SIGTERM and SIGKILL (runner_hang's pytest and child ignore SIGTERM, so all
# of it).
GRACE = KILL_GRACE
HANGING = "tests/test_hang.py::test_hangs_with_stubborn_child"
INVALID_PARAMS = -32602
EXECUTION_FAILED = -32000
def has_failed_heading(text: str, node_id: str) -> bool:
    """Whether the Markdown has the failure's heading; marked "(new)" or
    "(failing for 2 runs)" when an earlier call's run of the same project
    left pytest's cache and the history of runs (docs/flaky.md)."""
    return re.search(rf"^### FAILED( \((new|failing for \d+ runs)\))?: {re.escape(node_id)}( \(line \d+\))?$", text, re.M) is not None


ADR006_KEYS = {"exit_code", "summary", "tests", "json_report", "text_output", "collection_errors"}
# Said only when an earlier run of the project left pytest's cache and the
# history of runs (the calls here may run one after the other on the same
# project).
OPTIONAL_KEYS = {"changes", "history"}
# ARCHITECTURE.md: what data of a -32000 execution error holds (ADR-007).
EXEC_DATA_KEYS = {"error_type", "exit_code", "signal", "stdout", "stderr", "command", "duration"}
SUMMARY_KEYS = {"total", "passed", "failed", "skipped", "errors", "xfailed", "xpassed", "duration"}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def text_of(result: CallToolResult) -> str:
    """The answer's text: its first content block; a shortened answer adds
    a link to its complete result (tests/mcp/test_surface.py)."""
    assert result.content and result.content[0].type == "text", result
    assert all(c.type == "resource_link" for c in result.content[1:]), result
    return result.content[0].text


async def call(conn, tool: str, args: Any, **kw: Any) -> CallToolResult:
    return await conn.session.call_tool(tool, args, **kw)


async def call_error(conn, tool: str, args: Any) -> MCPError:
    """Calls and expects a JSON-RPC error."""
    try:
        result = await call(conn, tool, args)
    except MCPError as e:
        return e
    pytest.fail(f"{tool} {args!r} answered with a result instead of a JSON-RPC error: {result!r}")


async def gather(*thunks: Any) -> list[Any]:
    """Runs the zero-argument coroutine functions at once; their results in order."""
    results: list[Any] = [None] * len(thunks)

    async def one(i: int) -> None:
        results[i] = await thunks[i]()

    async with anyio.create_task_group() as tg:
        for i in range(len(thunks)):
            tg.start_soon(one, i)
    return results


async def plain_pytest(root: Path, *args: str) -> str:
    """Output of plain `python -m pytest -q -rA` in root (the reference)."""

    def run() -> str:
        out = subprocess.run(
            [str(PYTHON), "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", *args],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=120,
            env={"PATH": "/usr/bin:/bin", "COLUMNS": "200", "PYTHONDONTWRITEBYTECODE": "1"},
        )
        return out.stdout

    return await anyio.to_thread.run_sync(run)


def reference(output: str) -> tuple[dict[str, int], dict[str, str]]:
    """What ARCHITECTURE.md's model makes of a plain `pytest -q -rA` run: the
    summary counts and the outcome per test id (xfail is skipped, xpass is
    passed, a test that passed but errored in teardown is one error)."""
    last = [line for line in output.splitlines() if line.strip()][-1]
    line = {w: int(n) for n, w in re.findall(r"(\d+) (\w+)", last.split(" in ")[0])}
    reports: dict[str, set[str]] = {}
    for text in output.splitlines():
        if m := re.match(r"(PASSED|FAILED|ERROR|XFAIL|XPASS) (.+)", text):
            node_id = m[2].split(" - ")[0].strip()
            reports.setdefault(node_id, set()).add(m[1])
    outcomes = {}
    for node_id, seen in reports.items():
        for word, outcome in [("ERROR", "error"), ("FAILED", "failed"), ("XFAIL", "xfailed"), ("XPASS", "xpassed")]:
            if word in seen:
                break
        else:
            outcome = "passed"
        outcomes[node_id] = outcome
    count = lambda o: sum(1 for v in outcomes.values() if v == o)  # noqa: E731
    counts = {
        "passed": count("passed") + count("xpassed"),
        "failed": count("failed"),
        "errors": count("error"),
        "xfailed": count("xfailed"),
        "xpassed": count("xpassed"),
        "skipped": line.get("skipped", 0) + count("xfailed"),
    }
    counts["total"] = counts["passed"] + counts["failed"] + counts["skipped"] + counts["errors"]
    model = {"xfailed": "skipped", "xpassed": "passed"}
    return counts, {k: model.get(v, v) for k, v in outcomes.items()}


def check_against_reference(data: dict[str, Any], output: str) -> None:
    counts, outcomes = reference(output)
    assert {k: data["summary"][k] for k in counts} == counts, (data["summary"], output[-1500:])
    ours = {t["node_id"]: t["outcome"] for t in data["tests"]}
    assert len(ours) == len(data["tests"]) == data["summary"]["total"], data["tests"]
    # Skipped tests appear in -rA by location, not by id: compare the rest.
    ours = {k: v for k, v in ours.items() if v != "skipped" or k in outcomes}
    assert ours == outcomes, (ours, outcomes)


def collected_ids(output: str) -> list[str]:
    return [line for line in output.splitlines() if "::" in line and not line.startswith(" ")]


def by_function(ids: list[str]) -> dict[str, int]:
    """pytest's ids as discovery answers them: a parametrized function's id
    (before its parameters; pytest accepts it and runs every case) with its
    number of cases, a plain test's own id with 1, in collection order."""
    out: dict[str, int] = {}
    for id_ in ids:
        after_file = id_.index("::") + 2
        at = id_.find("[", after_file)
        function = id_[:at] if at >= 0 and id_.endswith("]") else id_
        out[function] = out.get(function, 0) + 1
    return out


SLOW_TEST_FILE = """\
import time
from pathlib import Path

RUNNING = Path(__file__).resolve().parent.parent / "running"


def test_{x}_one():
    # Every file's first test waits (up to 30 s) until the first test of
    # each of the {files} files is running: the runs are at once, or fail.
    RUNNING.mkdir(exist_ok=True)
    (RUNNING / "{x}").touch()
    deadline = time.monotonic() + 30
    while len(list(RUNNING.iterdir())) < {files}:
        assert time.monotonic() < deadline, "the other files' runs did not run at the same time"
        time.sleep(0.02)
    time.sleep({sleep})


def test_{x}_two():
    time.sleep({sleep})


def test_{x}_three():
    time.sleep({sleep})


def test_{x}_fails():
    time.sleep({sleep})
    assert "{x}" == "nope"
"""


def slow_project(make_project, files: str = "abcd", sleep: float = 0.4) -> Path:
    """Files tests/test_slow_<x>.py with four tests each (three pass, one
    fails) sleeping `sleep` s, the first of which passes only when the
    first tests of all files run at the same time (each file in a run of
    its own), and tests/check_broken.py that fails to import (found only
    with pattern 'check_*.py')."""
    contents = {"pytest.ini": "[pytest]\ntestpaths = tests\n"}
    for x in files:
        contents[f"tests/test_slow_{x}.py"] = SLOW_TEST_FILE.format(x=x, sleep=sleep, files=len(files))
    contents["tests/check_broken.py"] = "import no_such_module_here\n\n\ndef test_x():\n    pass\n"
    return make_project("slow", contents)


# ---------------------------------------------------------------------------
# Tools and schemas
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
async def test_lists_exactly_the_two_tools_with_strict_schemas(project, connect, protocol):
    root = project("one_failure")
    with anyio.fail_after(20):
        async with connect(root, protocol=protocol) as conn:
            listed = await conn.session.list_tools()
    tools = {t.name: t for t in listed.tools}
    assert sorted(tools) == ["discover_tests", "execute_tests"], [t.name for t in listed.tools]
    assert len(listed.tools) == 2

    expected = {
        "execute_tests": {
            "node_ids": "array",
            "markers": "string",
            "keywords": "string",
            "verbosity": "integer",
            "failfast": "boolean",
            "maxfail": "integer",
            "last_failed": "boolean",
            "affected": "boolean",
            # A count or "auto": the alternatives' types.
            "workers": ["integer", "string"],
            "retries": "integer",
            "show_capture": "boolean",
            "timeout": "integer",
            "max_tokens": "integer",
            "format": "string",
            "coverage": "boolean",
            "base": "string",
            "warm": "boolean",
        },
        "discover_tests": {"path": "string", "pattern": "string", "max_tokens": "integer", "format": "string"},
    }
    for name, props in expected.items():
        tool = tools[name]
        assert tool.description and len(tool.description.strip()) > 40, (name, tool.description)
        schema = tool.input_schema
        assert schema["type"] == "object", schema
        assert schema.get("additionalProperties") is False, (name, schema)
        assert set(schema["properties"]) == set(props), (name, sorted(schema["properties"]))
        assert not schema.get("required"), (name, schema.get("required"))
        for prop, typ in props.items():
            spec = schema["properties"][prop]
            types = [alt["type"] for alt in spec["anyOf"]] if isinstance(typ, list) else spec["type"]
            assert types == typ, (name, prop, spec)
            assert spec.get("description", "").strip(), (name, prop, spec)
        assert schema["properties"]["format"]["enum"] == ["markdown", "json"], schema
    run = tools["execute_tests"].input_schema["properties"]
    assert run["node_ids"]["items"] == {"type": "string"}, run["node_ids"]
    assert (run["verbosity"]["minimum"], run["verbosity"]["maximum"]) == (-2, 2), run["verbosity"]
    assert run["maxfail"]["minimum"] == 1, run["maxfail"]
    assert run["timeout"]["minimum"] == 1, run["timeout"]
    assert run["workers"]["anyOf"][0]["minimum"] == 1, run["workers"]
    assert run["workers"]["anyOf"][1]["enum"] == ["auto"], run["workers"]
    assert (run["retries"]["minimum"], run["retries"]["maximum"]) == (1, 5), run["retries"]


# ---------------------------------------------------------------------------
# Running and discovering, both formats
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
async def test_one_failure_in_both_formats(project, connect, protocol):
    root = project("one_failure")
    with anyio.fail_after(60):
        async with connect(root, protocol=protocol) as conn:
            output, markdown, explicit, as_json = await gather(
                lambda: plain_pytest(project("one_failure", as_="reference")),
                lambda: call(conn, "execute_tests", {}),
                lambda: call(conn, "execute_tests", {"format": "markdown"}),
                lambda: call(conn, "execute_tests", {"format": "json"}),
            )
    _, outcomes = reference(output)
    failed = {k for k, v in outcomes.items() if v == "failed"}
    assert failed == {"tests/test_calc.py::test_discount_fractional"}, output

    for result in (markdown, explicit):
        assert not result.is_error, result
        text = text_of(result)
        s = structured_of(result)
        assert s["status"] == "failure", s
        headline_of(text, s)
        assert has_failed_heading(text, "tests/test_calc.py::test_discount_fractional"), text
        assert "test_add" not in text, "passing tests are only counted:\n" + text

    assert not as_json.is_error, as_json
    data = json.loads(text_of(as_json))
    assert set(data) - OPTIONAL_KEYS == ADR006_KEYS, sorted(data)
    assert data["exit_code"] == 1
    assert set(data["summary"]) >= SUMMARY_KEYS, data["summary"]
    check_against_reference(data, output)
    bad = next(t for t in data["tests"] if t["outcome"] == "failed")
    assert "8.991" in bad["message"], bad
    assert isinstance(data["json_report"], dict), type(data["json_report"])
    assert "1 failed, 4 passed" in data["text_output"], data["text_output"][-500:]
    assert data["collection_errors"] == []


async def test_mixed_in_both_formats_matches_pytest(project, connect):
    root = project("mixed")
    with anyio.fail_after(60):
        async with connect(root) as conn:
            output, markdown, as_json = await gather(
                lambda: plain_pytest(project("mixed", as_="reference")),
                lambda: call(conn, "execute_tests", {}),
                # The whole ADR-006 object: mixed's is over the default budget.
                lambda: call(conn, "execute_tests", {"format": "json", "max_tokens": 1_000_000}),
            )
    structured = structured_of(markdown)
    markdown, data = text_of(markdown), json.loads(text_of(as_json))
    _, outcomes = reference(output)
    failed = {k for k, v in outcomes.items() if v == "failed"}
    errors = {k for k, v in outcomes.items() if v == "error"}
    assert failed and errors, output

    assert structured["status"] == "failure", structured
    headline_of(markdown, structured)
    for node_id in failed:
        assert has_failed_heading(markdown, node_id), (node_id, markdown)
    for node_id in errors:
        assert node_id in markdown, (node_id, markdown)

    assert set(data) - OPTIONAL_KEYS == ADR006_KEYS, sorted(data)
    assert data["exit_code"] == 1
    check_against_reference(data, output)
    counts = ("total", "failed", "errors")
    assert summary_of(structured, *counts) == summary_of(data, *counts), (structured["summary"], data["summary"])


async def test_parameters_reach_pytest(project, connect):
    root = project("one_failure")
    fractional = "tests/test_calc.py::test_discount_fractional"
    with anyio.fail_after(60):
        async with connect(root) as conn:
            chosen = json.loads(
                text_of(await call(conn, "execute_tests", {"node_ids": [fractional], "format": "json"}))
            )
            keyword = json.loads(
                text_of(await call(conn, "execute_tests", {"keywords": "add", "format": "json"}))
            )
            quiet = json.loads(
                text_of(await call(conn, "execute_tests", {"verbosity": -2, "failfast": True, "format": "json"}))
            )
    assert [t["node_id"] for t in chosen["tests"]] == [fractional], chosen["tests"]
    assert sorted(t["node_id"] for t in keyword["tests"]) == [
        "tests/test_calc.py::test_add",
        "tests/test_calc.py::test_add_negative",
    ], keyword["tests"]
    assert keyword["exit_code"] == 0
    # failfast: nothing after the failing test ran.
    ran = [t["node_id"] for t in quiet["tests"]]
    assert ran[-1] == fractional and "tests/test_calc.py::test_add_negative" not in ran, ran


async def test_last_failed_reruns_exactly_what_failed(project, connect):
    root = project("last_failed")
    rerun_line = "> Rerun the failures: execute_tests with last_failed: true\n"
    with anyio.fail_after(60):
        async with connect(root) as conn:
            first_result = await call(conn, "execute_tests", {})
            again = json.loads(
                text_of(await call(conn, "execute_tests", {"last_failed": True, "format": "json"}))
            )
            (root / "FIXED").write_text("")
            fixed_result = await call(conn, "execute_tests", {"last_failed": True})
            nothing_result = await call(conn, "execute_tests", {"last_failed": True})
    first, fixed, nothing = (text_of(r) for r in (first_result, fixed_result, nothing_result))
    first_s, fixed_s, nothing_s = (structured_of(r) for r in (first_result, fixed_result, nothing_result))
    assert first_s["status"] == "failure", first_s
    headline_of(first, first_s)
    assert first.endswith(rerun_line), first
    failed = {t["node_id"] for t in again["tests"] if t["outcome"] in ("failed", "error")}
    assert failed == {t["node_id"] for t in again["tests"]}, again["tests"]
    assert failed == {
        "tests/test_shop.py::test_even[1]",
        "tests/test_shop.py::test_even[3]",
        "tests/test_shop.py::test_uses_database",
    }, again["tests"]
    assert again["summary"]["total"] == 3, again["summary"]
    assert fixed_s["status"] == "success", fixed_s
    headline_of(fixed, fixed_s)
    assert summary_of(fixed_s, "total", "failed") == {"total": 3, "failed": 0}, fixed_s["summary"]
    assert "Rerun the failures" not in fixed, fixed
    headline_of(nothing, nothing_s)
    assert summary_of(nothing_s, "total", "failed") == {"total": 0, "failed": 0}, nothing_s["summary"]
    assert "> No test ran: pytest's cache records no failed tests" in nothing, nothing
    assert "Rerun the failures" not in nothing, nothing


async def test_discover_in_both_formats(project, connect):
    good = project("mixed")
    broken = project("collection_errors")

    async def on_good() -> list[CallToolResult]:
        async with connect(good) as conn:
            return await gather(
                lambda: call(conn, "discover_tests", {}),
                lambda: call(conn, "discover_tests", {"format": "json"}),
                lambda: call(conn, "discover_tests", {"path": "tests", "pattern": "test_isbn.py", "format": "json"}),
            )

    async def on_broken() -> list[CallToolResult]:
        async with connect(broken) as conn:
            return await gather(
                lambda: call(conn, "discover_tests", {"format": "markdown"}),
                lambda: call(conn, "discover_tests", {"format": "json"}),
            )

    with anyio.fail_after(60):
        ref_good, ref_broken, (md, js, narrowed), (md_broken, js_broken) = await gather(
            lambda: plain_pytest(project("mixed", as_="ref_mixed"), "--collect-only"),
            lambda: plain_pytest(project("collection_errors", as_="ref_ce"), "--collect-only"),
            on_good,
            on_broken,
        )
    expected_ids = collected_ids(ref_good)
    assert len(expected_ids) > 20, ref_good
    expected_broken_files = {
        m[1] for m in re.finditer(r"^ERROR (\S+)", ref_broken, re.M)
    }
    assert expected_broken_files == {"tests/test_import_error.py", "tests/test_syntax_error.py"}

    assert not md.is_error and not js.is_error
    text = text_of(md)
    files = sorted({i.split("::")[0] for i in expected_ids})
    d = structured_of(md)
    assert d["status"] == "success", d
    headline_of(text, d)
    assert d["count"] == len(expected_ids), d
    assert sorted({t["node_id"].split("::")[0] for t in d["tests"]}) == files, d["tests"]
    for f in files:
        assert f"\n### {f}\n" in text, (f, text)
    data = json.loads(text_of(js))
    # The style guide's keys, and `truncated` when case ids were left out.
    assert set(data) == {"tests", "count", "collection_errors", "truncated"}, sorted(data)
    assert data["count"] == len(expected_ids)
    # One entry per test function; a parametrized one counts its cases and
    # shows the first few ids.
    assert {t["node_id"]: t.get("cases", 1) for t in data["tests"]} == by_function(expected_ids)
    assert [t["node_id"] for t in data["tests"]] == list(by_function(expected_ids))
    assert data["collection_errors"] == []
    keys = {"node_id", "module", "class", "function", "file", "line"}
    assert any("cases" in t for t in data["tests"]), data["tests"]
    for t in data["tests"]:
        if "cases" in t:
            assert set(t) == keys | {"cases", "case_ids"}, t
            cases = [i for i in expected_ids if i.startswith(t["node_id"] + "[")]
            assert t["case_ids"] == cases[:3], t
        else:
            assert set(t) == keys, t
        assert t["file"] == t["node_id"].split("::")[0] and isinstance(t["line"], int), t
    omitted = data["count"] - sum(len(t.get("case_ids", [None])) for t in data["tests"])
    assert data.get("truncated", {}).get("case_ids_omitted", 0) == omitted, data.get("truncated")
    only = json.loads(text_of(narrowed))
    assert only["count"] == sum(1 for i in expected_ids if i.startswith("tests/test_isbn.py::"))
    assert {t["file"] for t in only["tests"]} == {"tests/test_isbn.py"}

    # Collection errors are data, not a failure of the tool.
    assert not md_broken.is_error and not js_broken.is_error
    text = text_of(md_broken)
    d = structured_of(md_broken)
    assert d["status"] == "failure", d
    headline_of(text, d)
    assert len(d["collection_errors"]) == 2, d["collection_errors"]
    for f in expected_broken_files:
        assert f"### COLLECTION ERROR: {f}" in text, text
    data = json.loads(text_of(js_broken))
    assert data["count"] == 2 == len(collected_ids(ref_broken))
    by_file = {e["file"]: e for e in data["collection_errors"]}
    assert set(by_file) == expected_broken_files, data["collection_errors"]
    assert by_file["tests/test_import_error.py"]["error_type"] == "ImportError"
    assert by_file["tests/test_syntax_error.py"]["error_type"] == "SyntaxError"
    for e in by_file.values():
        assert set(e) == {"file", "error_type", "message", "line", "traceback"}, e
        assert e["message"] and e["traceback"], e


# ---------------------------------------------------------------------------
# Validation: every rule, in both formats, before anything runs
# ---------------------------------------------------------------------------

# (tool, arguments, field, received_value). OUTSIDE is replaced by the
# absolute path of a file that exists next to (not in) the project copy;
# the copy's `link` is a symlink to the directory holding that file.
OUTSIDE = "<outside>"
INVALID = [
    ("execute_tests", {"verbosity": 3}, "verbosity", 3),
    ("execute_tests", {"verbosity": -3}, "verbosity", -3),
    ("execute_tests", {"verbosity": "2"}, "verbosity", "2"),
    ("execute_tests", {"verbosity": 1.5}, "verbosity", 1.5),
    ("execute_tests", {"maxfail": 0}, "maxfail", 0),
    ("execute_tests", {"failfast": True, "maxfail": 2}, "failfast", True),
    ("execute_tests", {"failfast": "yes"}, "failfast", "yes"),
    ("execute_tests", {"timeout": 0}, "timeout", 0),
    ("execute_tests", {"timeout": 86401}, "timeout", 86401),
    ("execute_tests", {"extra_args": ["-p", "evil"]}, "extra_args", ["-p", "evil"]),
    ("execute_tests", {"node_ids": "tests"}, "node_ids", "tests"),
    ("execute_tests", {"node_ids": ["../outside.py"]}, "node_ids", "../outside.py"),
    ("execute_tests", {"node_ids": ["tests/../../outside.py"]}, "node_ids", "tests/../../outside.py"),
    ("execute_tests", {"node_ids": [OUTSIDE]}, "node_ids", OUTSIDE),
    ("execute_tests", {"node_ids": ["link/outside.py"]}, "node_ids", "link/outside.py"),
    ("execute_tests", {"node_ids": ["tests/no_such_file.py"]}, "node_ids", "tests/no_such_file.py"),
    ("execute_tests", {"node_ids": [""]}, "node_ids", ""),
    ("execute_tests", {"node_ids": [7]}, "node_ids", 7),
    ("execute_tests", {"node_ids": ["--pdb"]}, "node_ids", "--pdb"),
    ("execute_tests", {"node_ids": ["tests/test_a.py\u0000x"]}, "node_ids", "tests/test_a.py\u0000x"),
    ("execute_tests", {"keywords": "a\u0007b"}, "keywords", "a\u0007b"),
    ("execute_tests", {"keywords": "test_a\nor x"}, "keywords", "test_a\nor x"),
    ("execute_tests", {"keywords": "-k"}, "keywords", "-k"),
    ("execute_tests", {"markers": "-p evil"}, "markers", "-p evil"),
    ("execute_tests", {"markers": "  --co"}, "markers", "  --co"),
    ("discover_tests", {"path": "../"}, "path", "../"),
    ("discover_tests", {"path": OUTSIDE}, "path", OUTSIDE),
    ("discover_tests", {"path": "-x"}, "path", "-x"),
    ("discover_tests", {"path": "link"}, "path", "link"),
    ("discover_tests", {"path": ["tests"]}, "path", ["tests"]),
    ("discover_tests", {"pattern": "tests/test_*.py"}, "pattern", "tests/test_*.py"),
    ("discover_tests", {"pattern": "--co"}, "pattern", "--co"),
    ("discover_tests", {"pattern": " "}, "pattern", " "),
    ("discover_tests", {"timeout": 5}, "timeout", 5),
    # Options hidden in values, control characters, very long values
    # (issue 7; more in test_reliability.py).
    ("execute_tests", {"node_ids": ["--rootdir=/"]}, "node_ids", "--rootdir=/"),
    ("execute_tests", {"markers": "--rootdir=/"}, "markers", "--rootdir=/"),
    ("execute_tests", {"keywords": "-p evil"}, "keywords", "-p evil"),
    ("execute_tests", {"keywords": "a\u001b[31mb"}, "keywords", "a\u001b[31mb"),
    ("execute_tests", {"node_ids": ["tests/test_a.py::" + "a" * 5000]}, "node_ids", "tests/test_a.py::" + "a" * 5000),
    ("execute_tests", {"keywords": "x" * 5000}, "keywords", "x" * 5000),
    ("execute_tests", {"node_ids": ["tests/test_a.py"] * 10_001}, "node_ids", 10_001),
    ("discover_tests", {"path": "tests\u0000"}, "path", "tests\u0000"),
    ("discover_tests", {"path": "x" * 5000}, "path", "x" * 5000),
    ("discover_tests", {"pattern": "test_\u007f.py"}, "pattern", "test_\u007f.py"),
    ("discover_tests", {"path": "link_file.py"}, "path", "link_file.py"),
]


def _case_id(case: tuple) -> str:
    tool, args, field, _ = case
    return f"{tool.split('_')[0]}-{field}-{json.dumps(args, ensure_ascii=True)[:40]}"


@pytest.mark.parametrize("case", INVALID, ids=[_case_id(c) for c in INVALID])
async def test_invalid_params_in_both_formats(project, connect, tmp_path, case):
    tool, args, field, received = case
    root = project("runner_tripwire")
    outside = tmp_path / "elsewhere" / "outside.py"
    outside.parent.mkdir()
    outside.write_text("def test_outside(): pass\n")
    (root / "link").symlink_to(outside.parent)
    (root / "link_file.py").symlink_to(outside)

    def fill(value: Any) -> Any:
        if value == OUTSIDE:
            return str(outside)
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    args = {k: fill(v) for k, v in args.items()}
    received = fill(received)
    with anyio.fail_after(20):
        async with connect(root) as conn:
            error = await call_error(conn, tool, {**args, "format": "json"})
            markdown = await call(conn, tool, args)

    assert error.code == INVALID_PARAMS, (error.code, error.message)
    assert error.message.startswith(f"Invalid params: {field} "), error.message
    assert set(error.data) == {"field", "detail", "received_value"}, error.data
    assert error.data["field"] == field, error.data
    assert error.data["received_value"] == received, error.data
    assert error.data["detail"] and error.data["detail"] in error.message, error.data

    assert markdown.is_error is True, markdown
    text = text_of(markdown)
    assert text.startswith(f"Invalid params: {field} "), text
    assert text.strip() == error.message, (text, error.message)
    # Refused before pytest was started (the project's conftest.py writes this).
    assert not (root / "PYTEST_STARTED").exists()


@pytest.mark.parametrize(
    "tool, value",
    [("execute_tests", "xml"), ("execute_tests", 5), ("discover_tests", "JSON")],
)
async def test_an_unknown_format_is_refused_in_markdown(project, connect, tool, value):
    root = project("runner_tripwire")
    with anyio.fail_after(20):
        async with connect(root) as conn:
            result = await call(conn, tool, {"format": value})
    assert result.is_error is True, result
    text = text_of(result)
    assert text.startswith("Invalid params: format must be "), text
    assert json.dumps(value) in text, text
    assert not (root / "PYTEST_STARTED").exists()


async def test_arguments_that_are_not_an_object(project, connect):
    # The SDK's call_tool types arguments as a dict; send raw requests.
    root = project("runner_tripwire")
    refused = [[1], "tests", 7, True]
    errors = []
    with anyio.fail_after(20):
        async with connect(root) as conn:
            for arguments in refused:
                request = Request[dict[str, Any], str](
                    method="tools/call", params={"name": "execute_tests", "arguments": arguments}
                )
                with pytest.raises(MCPError) as caught:
                    await conn.session.send_request(request, CallToolResult)
                errors.append(caught.value)
            assert not (root / "PYTEST_STARTED").exists()
            # The server is still fine afterwards.
            again = await call(conn, "discover_tests", {"format": "json"})
    for arguments, error in zip(refused, errors):
        assert error.code == INVALID_PARAMS, (error.code, error.message)
        assert error.message.startswith("Invalid params: arguments "), error.message
        assert error.data == {
            "field": "arguments",
            "detail": "must be a JSON object",
            "received_value": arguments,
        }, error.data
    assert json.loads(text_of(again))["count"] == 1


async def test_an_unknown_tool_is_invalid_params(project, connect):
    root = project("runner_tripwire")
    with anyio.fail_after(20):
        async with connect(root) as conn:
            error = await call_error(conn, "run_everything", {})
    assert error.code == INVALID_PARAMS, error
    assert error.data["field"] == "name" and error.data["received_value"] == "run_everything", error.data
    assert not (root / "PYTEST_STARTED").exists()


# ---------------------------------------------------------------------------
# Timeout and crash
# ---------------------------------------------------------------------------


async def test_a_timeout_names_the_hanging_test_and_leaves_nothing(project, connect, reaper):
    """Three hanging runs at once, each on its own copy and server: a
    request timeout in JSON, one in Markdown, and the server's --timeout."""
    # Long enough for pytest to reach the hanging test on a loaded machine
    # (3 s was once too little beside other CI jobs).
    LIMIT = 10
    roots = {name: project("runner_hang", as_=name) for name in ("json", "markdown", "server_default")}
    for root in roots.values():
        reaper(root)
    answers: dict[str, tuple[Any, float]] = {}

    async def run(name: str, args: dict[str, Any], server_timeout: int | None = None) -> None:
        async with connect(roots[name], timeout=server_timeout) as conn:
            start = time.monotonic()
            try:
                outcome: Any = await call(conn, "execute_tests", args)
            except MCPError as e:
                outcome = e
            answers[name] = (outcome, time.monotonic() - start)
            # Everything the run started is gone by the time it answers
            # (SIGKILL is asynchronous: allow a moment).
            await wait_until_gone(roots[name], 1.0)
            assert conn.process.returncode is None, "the server must survive a timeout"

    with anyio.fail_after(LIMIT + 40):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "json", {"timeout": LIMIT, "format": "json"})
            tg.start_soon(run, "markdown", {"timeout": LIMIT})
            tg.start_soon(run, "server_default", {}, LIMIT)

    for name, root in roots.items():
        pids = recorded_pids(root)
        assert all(pids.values()), f"{name}: the hanging test never got going: {pids}"
        outcome, elapsed = answers[name]
        figure(f"timeout {LIMIT}s ({name}): answered after {elapsed:.2f}s (SIGTERM ignored, SIGKILL after {GRACE:.1f}s grace)")
        assert LIMIT + GRACE <= elapsed < LIMIT + GRACE + 10.0, (name, elapsed)

    error, _ = answers["json"]
    assert isinstance(error, MCPError), error
    assert error.code == EXECUTION_FAILED, (error.code, error.message)
    assert set(error.data) >= EXEC_DATA_KEYS, sorted(error.data)
    assert error.data["error_type"] == "timeout", error.data
    assert error.data["command"][:3] == [str(PYTHON), "-m", "pytest"], error.data["command"]
    assert error.data["running_test"] == HANGING, error.data
    assert [(t["node_id"], t["outcome"]) for t in error.data["tests"]] == [
        ("tests/test_hang.py::test_quick", "passed")
    ], error.data["tests"]
    assert f"timeout of {LIMIT} seconds" in error.message, error.message

    for name in ("markdown", "server_default"):
        result, _ = answers[name]
        assert isinstance(result, CallToolResult) and result.is_error is True, (name, result)
        text = text_of(result)
        s = structured_of(result)
        assert s["status"] == "timeout", (name, s)
        headline_of(text, s)
        assert f"Running at the end: {HANGING}" in text, text
        assert f"timeout of {LIMIT} seconds" in text.splitlines()[0], text


async def test_a_crash_is_reported_with_its_signal(project, connect):
    root = project("runner_segfault")
    with anyio.fail_after(60):
        async with connect(root) as conn:
            error = await call_error(conn, "execute_tests", {"format": "json"})
            markdown = await call(conn, "execute_tests", {})
            assert conn.process.returncode is None
    assert error.code == EXECUTION_FAILED, (error.code, error.message)
    assert set(error.data) >= EXEC_DATA_KEYS, sorted(error.data)
    assert error.data["error_type"] == "crash", error.data
    assert error.data["signal"] == "SIGSEGV", error.data
    assert error.data["running_test"] == "tests/test_crash.py::test_segfaults", error.data
    assert [(t["node_id"], t["outcome"]) for t in error.data["tests"]] == [
        ("tests/test_crash.py::test_before_the_crash", "passed")
    ], error.data["tests"]
    assert "Segmentation fault" in error.data["stderr"], error.data["stderr"][:500]

    assert markdown.is_error is True, markdown
    text = text_of(markdown)
    s = structured_of(markdown)
    assert s["status"] == "crash", s
    headline_of(text, s)
    assert "SIGSEGV" in text.splitlines()[0], text
    assert "Running at the end: tests/test_crash.py::test_segfaults" in text, text


# ---------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------


async def test_progress_notifications_arrive(make_project, connect):
    root = slow_project(make_project, files="a", sleep=0.3)
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    with anyio.fail_after(60):
        async with connect(root) as conn:
            start = time.monotonic()
            result = await call(conn, "execute_tests", {"format": "json"}, progress_callback=on_progress)
            elapsed = time.monotonic() - start
            await anyio.sleep(0.2)  # callbacks run as tasks of their own
            request = next(m for m in conn.sent if m.get("method") == "tools/call")
            notes = [m for m in conn.received if m.get("method") == "notifications/progress"]
    assert notes and {n["params"]["progressToken"] for n in notes} == {request["id"]}, notes
    assert len(notes) == len(seen), (notes, seen)
    data = json.loads(text_of(result))
    assert data["summary"]["total"] == 4 and data["summary"]["failed"] == 1, data["summary"]
    assert "progressToken" in request["params"]["_meta"], request
    figure(f"progress: {len(seen)} notifications in a {elapsed:.2f}s run of 4 tests: {seen}")
    assert seen, "no notifications/progress arrived"
    values = [p for p, _, _ in seen]
    assert values == sorted(values), f"progress must not go backwards: {seen}"
    for progress, total, _ in seen:
        assert progress >= 0
        if total is not None:
            assert total == 4 and progress <= total, seen
    assert any(total is not None for _, total, _ in seen), seen
    assert max(values) >= 1, seen
    messages = [m for _, _, m in seen if m]
    assert all(m.startswith("tests/test_slow_a.py::") for m in messages), messages


# ---------------------------------------------------------------------------
# Cancellation
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", [HANDSHAKE, MODERN])
async def test_a_cancelled_call_leaves_no_process_behind(project, connect, reaper, protocol):
    root = project("runner_hang")
    reaper(root)
    outcome: dict[str, Any] = {}
    with anyio.fail_after(40):
        async with connect(root, protocol=protocol) as conn:
            scope = anyio.CancelScope()

            async def long_call() -> None:
                with scope:
                    outcome["result"] = await call(conn, "execute_tests", {"timeout": 60, "format": "json"})
                outcome["cancelled"] = scope.cancelled_caught

            async with anyio.create_task_group() as tg:
                tg.start_soon(long_call)
                await wait_for_file(root / "child.pid", 20)
                pids = recorded_pids(root)
                assert all(pid and alive(pid) for pid in pids.values()), pids
                # Another call on the same server is not held up by the hanging one.
                quick = await call(conn, "execute_tests", {"node_ids": ["tests/test_hang.py::test_quick"]})
                assert structured_of(quick)["status"] == "success", quick
                headline_of(text_of(quick), structured_of(quick))
                assert "result" not in outcome
                start = time.monotonic()
                scope.cancel()  # the SDK sends notifications/cancelled
            gone = await wait_until_gone(root, GRACE + 4.0)
            figure(
                f"cancel ({protocol}): pytest and its SIGTERM-ignoring child gone "
                f"{time.monotonic() - start:.2f}s after the cancel ({gone:.2f}s after the call returned)"
            )

            assert outcome == {"cancelled": True}, outcome
            request = next(m for m in conn.sent if m.get("method") == "tools/call")
            cancels = [m for m in conn.sent if m.get("method") == "notifications/cancelled"]
            assert [c["params"]["requestId"] for c in cancels] == [request["id"]], conn.sent
            # (MCP: the receiver of a cancellation SHOULD NOT answer the request.)
            answers = [m for m in conn.received if m.get("id") == request["id"]]
            assert not answers, answers
            # The server lives on and answers the next call.
            assert conn.process.returncode is None
            data = json.loads(text_of(await call(conn, "discover_tests", {"format": "json"})))
            assert data["count"] == 2, data


# ---------------------------------------------------------------------------
# Concurrency
# ---------------------------------------------------------------------------


async def test_calls_run_at_once(make_project, connect):
    root = slow_project(make_project, files="abcd", sleep=0.4)
    figures: dict[str, tuple[float, float]] = {}  # name: (elapsed, reported duration)
    answers: dict[str, Any] = {}

    async def one(conn, name: str, tool: str, args: dict[str, Any]) -> None:
        start = time.monotonic()
        answers[name] = await call(conn, tool, args)
        figures[name] = (time.monotonic() - start, 0.0)

    with anyio.fail_after(60):
        async with connect(root) as conn:
            start = time.monotonic()
            async with anyio.create_task_group() as tg:
                for x, fmt in zip("abcd", ["json", "markdown", "json", "markdown"]):
                    node = f"tests/test_slow_{x}.py"
                    tg.start_soon(one, conn, x, "execute_tests", {"node_ids": [node], "format": fmt})
                tg.start_soon(one, conn, "discover", "discover_tests", {"format": "json"})
                tg.start_soon(one, conn, "broken", "discover_tests", {"pattern": "check_*.py"})
            wall = time.monotonic() - start

    reported = 0.0
    for x in "abcd":
        result = answers[x]
        assert not result.is_error, result
        text = text_of(result)
        failing = f"tests/test_slow_{x}.py::test_{x}_fails"
        if text.startswith("{"):
            data = json.loads(text)
            assert {t["node_id"] for t in data["tests"]} == {
                f"tests/test_slow_{x}.py::test_{x}_{n}" for n in ("one", "two", "three", "fails")
            }, data["tests"]
            assert (data["summary"]["passed"], data["summary"]["failed"]) == (3, 1), data["summary"]
            duration = data["summary"]["duration"]
        else:
            s = structured_of(result)
            assert s["status"] == "failure", s
            headline_of(text, s)
            assert summary_of(s, "total", "failed") == {"total": 4, "failed": 1}, s["summary"]
            assert has_failed_heading(text, failing), text
            duration = s["duration"]
        assert duration >= 4 * 0.4, (x, duration)
        figures[x] = (figures[x][0], duration)
        reported += duration
    data = json.loads(text_of(answers["discover"]))
    assert data["count"] == 16 and data["collection_errors"] == [], data
    broken = text_of(answers["broken"])
    assert not answers["broken"].is_error
    assert structured_of(answers["broken"])["status"] == "failure", answers["broken"]
    headline_of(broken, structured_of(answers["broken"]))
    assert "### COLLECTION ERROR: tests/check_broken.py" in broken, broken

    client_sum = sum(e for e, _ in figures.values())
    figure(
        "concurrency: 4 execute_tests + 2 discover_tests at once on one server: wall "
        f"{wall:.2f}s; sum of the calls' own times {client_sum:.2f}s; sum of pytest's reported "
        f"run durations {reported:.2f}s; per call "
        + ", ".join(f"{k} {e:.2f}s" for k, (e, _) in figures.items())
    )
    # Run one after another, each file's first test would have failed
    # waiting for the others (the 3 passed, 1 failed above): the calls ran
    # at once. (Not wall < the sum of the durations: on a loaded machine the
    # interpreters' start-up alone can exceed it.)


# ---------------------------------------------------------------------------
# The client going away
# ---------------------------------------------------------------------------


async def test_exiting_the_client_while_a_test_hangs(project, connect, reaper):
    """The SDK's own shutdown: leave the session and stdio_client contexts
    (stdin closed, then the SDK's wait) with a call in flight."""
    root = project("runner_hang")
    reaper(root)
    outcome: dict[str, Any] = {}

    async def in_flight(conn) -> None:
        try:
            outcome["result"] = await call(conn, "execute_tests", {"timeout": 60})
        except MCPError as e:
            outcome["error"] = e

    with anyio.fail_after(40):
        async with anyio.create_task_group() as tg:
            async with connect(root) as conn:
                tg.start_soon(in_flight, conn)
                await wait_for_file(root / "child.pid", 20)
                start = time.monotonic()
            closed = time.monotonic() - start
        gone = await wait_until_gone(root, GRACE + 4.0, servers=True)
    figure(
        f"client exit: the SDK's stdio_client shutdown took {closed:.2f}s; server exit status "
        f"{conn.process.returncode}; every process gone {closed + gone:.2f}s after leaving"
    )
    assert conn.process.returncode is not None
    assert not [m for m in conn.sent if m.get("method") == "notifications/cancelled"], conn.sent
    assert "result" not in outcome, outcome


async def test_closing_stdin_while_a_test_hangs(project, connect, reaper):
    """The client side closes its end of the server's stdin with a call in
    flight: the server must end the run and exit by itself."""
    root = project("runner_hang")
    reaper(root)
    outcome: dict[str, Any] = {}

    async def in_flight(conn) -> None:
        try:
            outcome["result"] = await call(conn, "execute_tests", {"timeout": 60, "format": "json"})
        except MCPError as e:
            outcome["error"] = e

    with anyio.fail_after(40):
        async with connect(root) as conn:
            async with anyio.create_task_group() as tg:
                tg.start_soon(in_flight, conn)
                await wait_for_file(root / "child.pid", 20)
                start = time.monotonic()
                await conn.process.stdin.aclose()
                with anyio.move_on_after(GRACE + 4.0):
                    while conn.process.returncode is None:
                        await anyio.sleep(0.02)
                exited = time.monotonic() - start
                status = conn.process.returncode
                gone = await wait_until_gone(root, 2.0, servers=True)
                with anyio.move_on_after(5):
                    while not outcome:
                        await anyio.sleep(0.02)
                tg.cancel_scope.cancel()
    figure(
        f"stdin closed: server exited by itself after {exited:.2f}s with status {status}; "
        f"every process of the run gone {exited + gone:.2f}s after the close"
    )
    assert status == 0, f"the server did not exit by itself within {GRACE + 4.0}s (status {status})"
    assert "result" not in outcome, outcome


CLIENT_SCRIPT = """\
import os, sys
import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

BIN, PYTHON, ROOT, LOG, GRACE = sys.argv[1:6]

async def main():
    args = ["serve", "--root", ROOT, "--python", PYTHON, "--kill-grace", GRACE]
    params = StdioServerParameters(command=BIN, args=args)
    with open(LOG, "a") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                async with anyio.create_task_group() as tg:
                    tg.start_soon(session.call_tool, "execute_tests", {"timeout": 60})
                    while not os.path.exists(os.path.join(ROOT, "child.pid")):
                        await anyio.sleep(0.02)
                    print("running", flush=True)
                    await anyio.sleep(600)

anyio.run(main)
"""


async def test_a_killed_client_leaves_no_process_behind(project, tmp_path, reaper):
    """The client process dies (SIGKILL) while a test hangs: the server sees
    its stdin end, ends the run and exits."""
    root = project("runner_hang")
    reaper(root)
    script = tmp_path / "client.py"
    script.write_text(CLIENT_SCRIPT)
    log = tmp_path / "killed-client-server.log"
    with anyio.fail_after(40):
        client = await anyio.open_process(
            [str(PYTHON), str(script), str(BIN), str(PYTHON), str(root), str(log), str(GRACE)],
            stderr=subprocess.STDOUT,
        )
        try:
            line = b""
            async for chunk in client.stdout:
                line += chunk
                if b"\n" in line:
                    break
            assert line.strip() == b"running", line
            server_pids = {pid for pid, _ in processes_in(root, servers=True)} - {
                pid for pid, _ in processes_in(root, warm=True)
            }
            assert len(server_pids) == 1, processes_in(root, servers=True)
            start = time.monotonic()
            client.kill()
            await client.wait()
        finally:
            if client.returncode is None:
                client.kill()
        gone = await wait_until_gone(root, GRACE + 4.0, servers=True)
    figure(
        f"client killed: the server and every process of the run gone {gone:.2f}s after "
        f"the client died ({time.monotonic() - start:.2f}s in all)"
    )
    print(log.read_text(errors="replace")[-3000:])
