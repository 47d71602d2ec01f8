"""`execute_tests` with `retries` (pytest-rerunfailures) through the MCP
Python SDK: on tests/projects/retries (no reruns of its own) the test that
fails on its first attempt only is counted flaky in the structured result
and named flaky in the text, the real failure failed every attempt; without
`retries` the flip fails. Refusals name `retries`: out of range, the plugin
turned off by the project, or not installed.
"""

from __future__ import annotations

from typing import Any

import anyio
import pytest
from conftest import REPO, headline_of
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

INVALID_PARAMS = -32602
FLIP = "tests/test_flaky.py::test_flip"
FAILURE = "tests/test_flaky.py::test_real_failure"


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text


async def call(conn, args: dict[str, Any]) -> Any:
    """execute_tests; a JSON-RPC error is returned, not raised."""
    try:
        return await conn.session.call_tool("execute_tests", args)
    except MCPError as e:
        return e


async def test_retries_count_the_flip_flaky(project, connect):
    root = project("retries")
    with anyio.fail_after(60):
        async with connect(root) as conn:
            retried = await call(conn, {"retries": 2})
            plain = await call(conn, {})

    assert isinstance(retried, CallToolResult) and not retried.is_error, retried
    s = retried.structured_content
    assert s is not None, retried
    assert s["status"] == "failure" and s["exit_code"] == 1, s
    summary = {k: s["summary"][k] for k in ("total", "passed", "failed", "flaky")}
    assert summary == {"total": 3, "passed": 2, "failed": 1, "flaky": 1}, s["summary"]
    assert [g["node_ids"] for g in s["failures"]] == [[FAILURE]], s["failures"]
    text = text_of(retried)
    headline_of(text, s)
    assert "\n### FLAKY (1)\n" in text, text
    assert f"\n- {FLIP} — passed after 1 failed attempt (first: AssertionError: connection refused" in text, text
    assert "\n  Rerun: failed all 3 attempts\n" in text, text
    # The structured result carries the same Markdown.
    assert s.get("markdown") == text, s

    # Without retries the flip is a plain failure.
    assert isinstance(plain, CallToolResult) and not plain.is_error, plain
    s = plain.structured_content
    assert (s["summary"]["failed"], s["summary"]["flaky"]) == (2, 0), s["summary"]
    assert sorted(id for g in s["failures"] for id in g["node_ids"]) == [FLIP, FAILURE], s["failures"]
    assert "### FLAKY" not in text_of(plain), text_of(plain)


async def test_retries_are_refused_naming_retries(project, connect):
    root = project("retries")
    nojson = REPO / ".venv-nojson" / "bin" / "python"
    assert nojson.is_file(), f"{nojson} is missing: run `bash scripts/setup.sh`"
    with anyio.fail_after(60):
        async with connect(root) as conn:
            for bad in [0, 6, -1, 1.5, "2", True]:
                error = await call(conn, {"retries": bad, "format": "json"})
                assert isinstance(error, MCPError) and error.code == INVALID_PARAMS, (bad, error)
                assert error.data["field"] == "retries", error.data
                assert error.data["received_value"] == bad, error.data
                markdown = await call(conn, {"retries": bad})
                assert markdown.is_error is True, markdown
                assert text_of(markdown).startswith("Invalid params: retries must be "), text_of(markdown)

        # The project turns pytest-rerunfailures off.
        (root / "pytest.ini").write_text("[pytest]\ntestpaths = tests\naddopts = -p no:rerunfailures\n")
        async with connect(root) as conn:
            error = await call(conn, {"retries": 2, "format": "json"})
            markdown = await call(conn, {"retries": 2})
        assert isinstance(error, MCPError) and error.code == INVALID_PARAMS, error
        assert error.data["field"] == "retries" and error.data["received_value"] == 2, error.data
        assert "installed for" in error.data["detail"] and "`-p no:rerunfailures`" in error.data["detail"], error.data
        assert error.message.startswith("Invalid params: retries needs pytest-rerunfailures"), error.message
        text = text_of(markdown)
        assert markdown.is_error is True and text.startswith("Invalid params: retries needs pytest-rerunfailures"), text
        assert "or leave retries out" in text and text.rstrip().endswith("(received 2)"), text

        # An interpreter without pytest-rerunfailures: what to install.
        async with connect(root, python=nojson) as conn:
            error = await call(conn, {"retries": 1, "format": "json"})
    assert isinstance(error, MCPError) and error.code == INVALID_PARAMS, error
    assert error.data["field"] == "retries" and error.data["received_value"] == 1, error.data
    assert "not installed" in error.data["detail"], error.data
    assert f"{nojson} -m pip install pytest-rerunfailures" in error.data["detail"], error.data
