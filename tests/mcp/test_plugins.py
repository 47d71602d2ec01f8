"""The plugin matrix through the MCP Python SDK: `execute_tests` on each
project of tests/plugins/ (one per popular pytest plugin; tests/plugins.rs
runs them through the command line and against pytest's own closing line),
served with the interpreter of the project's virtualenv
(.venv-plugins/<venv>/, made by `bash scripts/setup.sh`).

What each project must be told is its expect.json: the structured result's
status (never "success" when pytest exited 1), exit code and counts, every
expected failure named with its message, the reason of a failure with no
failing test (`exit_reason`), and a run that ended before its end (a crash:
the call's result is an error, and in JSON the error's data names the
running test and the tests never run). A project whose virtualenv is
missing is skipped, saying which and how to install it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import REPO, headline_of, structured_of
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

PLUGINS = REPO / "tests" / "plugins"
NAMES = sorted(p.name for p in PLUGINS.iterdir() if (p / "expect.json").is_file())
EXECUTION_FAILED = -32000
# A failure's place is never inside a virtualenv or an interpreter's packages.
INSTALLED = ("site-packages", "/.venv", ".venv-plugins/", "/lib/python3")


def expectations(name: str) -> dict[str, Any]:
    return json.loads((PLUGINS / name / "expect.json").read_text())


def interpreter(name: str, expect: dict[str, Any]) -> Path:
    python = REPO / ".venv-plugins" / expect["venv"] / "bin" / "python"
    if not python.is_file():
        plugin = expect["plugin"] or "pytest alone"
        pytest.skip(
            f"plugin matrix: {name} ({plugin}) skipped: {python} is missing; `bash scripts/setup.sh` "
            f"installs requirements-plugins.txt's `{expect['venv']}` group there"
        )
    return python


async def call(conn, args: dict[str, Any]) -> Any:
    """execute_tests; a JSON-RPC error is returned, not raised."""
    try:
        return await conn.session.call_tool("execute_tests", args)
    except MCPError as e:
        return e


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text


def expected_summary(expect: dict[str, Any]) -> dict[str, int]:
    """The structured summary pytest's closing line (expect.json's counts)
    makes: xpassed tests count as passed, xfailed ones as skipped."""
    c = {k: expect["counts"].get(k, 0) for k in ("passed", "failed", "error", "skipped", "xfailed", "xpassed")}
    return {
        "total": sum(c.values()),
        "passed": c["passed"] + c["xpassed"],
        "failed": c["failed"],
        "errors": c["error"],
        "skipped": c["skipped"] + c["xfailed"],
        "flaky": len(expect.get("flaky", [])),
    }


def check_result(name: str, expect: dict[str, Any], result: Any) -> None:
    assert isinstance(result, CallToolResult), (name, result)
    s = result.structured_content
    assert s is not None, (name, result)
    text = text_of(result)
    assert s["status"] == expect["status"], (name, s["status"], text)
    assert s["exit_code"] == expect["exit"], (name, s["exit_code"])
    headline_of(text, s)
    summary = {k: s["summary"].get(k) for k in expected_summary(expect)}
    assert summary == expected_summary(expect), (name, s["summary"], expect["counts"])
    for group in s["failures"]:
        at = group.get("at") or ""
        assert not any(p in at for p in INSTALLED), (name, "placed in an installed package", group)
    named = {i: g for g in s["failures"] for i in g["node_ids"]}
    for failure in expect["failures"]:
        assert failure["id"] in named, (name, failure["id"], s["failures"])
        group = named[failure["id"]]
        assert failure["message"] in group["message"] or failure["message"] in text, (name, failure, group)
    if "reason" in expect:
        reason = s.get("exit_reason")
        assert isinstance(reason, str) and reason and expect["reason"] in reason, (name, reason, text)


def check_crash(name: str, expect: dict[str, Any], markdown: Any, as_json: Any) -> None:
    crash = expect["crash"]
    assert isinstance(markdown, CallToolResult) and markdown.is_error is True, (name, markdown)
    text = text_of(markdown)
    s = structured_of(markdown)
    assert s["status"] == "crash", (name, s)
    headline_of(text, s)
    assert f"while running {crash['running']}" in text, (name, text)
    assert isinstance(as_json, MCPError) and as_json.code == EXECUTION_FAILED, (name, as_json)
    data = as_json.data
    assert data["error_type"] == "crash" and data["exit_code"] == expect["exit"], (name, data)
    assert data["running_test"] == crash["running"], (name, data)
    assert sorted(data["not_run"]) == sorted(crash["not_run"]), (name, data)


@pytest.mark.parametrize("name", NAMES)
async def test_each_project_is_told_as_it_ended(name, project, connect):
    expect = expectations(name)
    python = interpreter(name, expect)
    answers: dict[str, Any] = {}

    async def run(fmt: str) -> None:
        root = project(name, as_=f"{name}-{fmt}", under=PLUGINS)
        args = {} if fmt == "markdown" else {"format": fmt}
        async with connect(root, python=python) as conn:
            answers[fmt] = await call(conn, args)

    formats = ["markdown", "json"] if "crash" in expect else ["markdown"]
    with anyio.fail_after(180):
        async with anyio.create_task_group() as tg:
            for fmt in formats:
                tg.start_soon(run, fmt)
    if "crash" in expect:
        check_crash(name, expect, answers["markdown"], answers["json"])
    else:
        check_result(name, expect, answers["markdown"])
