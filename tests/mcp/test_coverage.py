"""`execute_tests` with `coverage` (issue 48, docs/coverage.md) through the
MCP Python SDK, on tests/projects/coverage_change: its base committed to a
fresh git repository and its edit copied over. The structured result's
`coverage` carries the changed lines that counted, ran, and the ones no test
ran, file by file, as the project's expect.json says; the text lists each
range with its function. A server whose interpreter has no coverage.py
refuses `coverage`, naming it and how to install it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import PROJECTS, REPO, headline_of
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

INVALID_PARAMS = -32602
CHANGE = PROJECTS / "coverage_change"


def edited(tmp_path: Path) -> Path:
    """The base committed, the edit copied over it."""
    root = tmp_path / "shop_project"
    shutil.copytree(CHANGE / "base", root)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_AUTHOR_NAME": "t",
           "GIT_AUTHOR_EMAIL": "t@example.com", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@example.com"}
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "base"]):
        subprocess.run(["git", "-C", str(root), *args], check=True, env=env)
    shutil.copytree(CHANGE / "edit", root, dirs_exist_ok=True)
    return root.resolve()


async def call(conn, args: dict[str, Any]) -> Any:
    """execute_tests; a JSON-RPC error is returned, not raised."""
    try:
        return await conn.session.call_tool("execute_tests", args)
    except MCPError as e:
        return e


async def test_the_change_s_lines_no_test_ran_are_in_the_structured_result(tmp_path, connect):
    root = edited(tmp_path)
    expect = json.loads((CHANGE / "expect.json").read_text())
    with anyio.fail_after(90):
        async with connect(root) as conn:
            result = await call(conn, {"coverage": True})
    assert isinstance(result, CallToolResult) and not result.is_error, result
    s = result.structured_content
    assert s is not None and s["status"] == "success", result
    c = s["coverage"]
    assert (c["base"], c["changed_lines"], c["covered_lines"]) == (
        "HEAD", expect["changed_lines"], expect["covered_lines"]), c
    want = [
        {"path": f["path"], "lines": [n for n in f["changed"] if n not in f["covered"]]}
        for f in expect["files"]
    ]
    assert [{"path": u["path"], "lines": u["lines"]} for u in c["uncovered"]] == [
        w for w in want if w["lines"]], c
    text = result.content[0].text
    headline_of(text, s)
    for f in expect["files"]:
        for gap in f["uncovered"]:
            lines = str(gap["start"]) if gap["start"] == gap["end"] else f"{gap['start']}-{gap['end']}"
            within = f" in {gap['function']}" if gap["function"] else " (module level)"
            assert f"\n- {f['path']}:{lines}{within}\n" in text, text


async def test_coverage_is_refused_naming_it_without_coverage_py(tmp_path, connect):
    root = edited(tmp_path)
    nojson = REPO / ".venv-nojson" / "bin" / "python"
    assert nojson.is_file(), f"{nojson} is missing: run `bash scripts/setup.sh`"
    with anyio.fail_after(60):
        async with connect(root, python=nojson) as conn:
            error = await call(conn, {"coverage": True, "format": "json"})
            base_alone = await call(conn, {"base": "main", "format": "json"})
    assert isinstance(error, MCPError) and error.code == INVALID_PARAMS, error
    assert error.data["field"] == "coverage", error.data
    assert "coverage.py" in error.data["detail"] and "pip install coverage" in error.data["detail"], error.data
    assert isinstance(base_alone, MCPError) and base_alone.data["field"] == "base", base_alone
