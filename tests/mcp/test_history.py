"""The history of runs through the MCP Python SDK (docs/flaky.md): an
agent calls `execute_tests` five times on unchanged code where one test
fails on odd runs (tests/projects/flaky_history). The fifth call calls it
flaky, not new, with its rate; the test that always fails is failing since
the first call; the structured result counts them. After an edit, the flip
passes and is not called fixed: it is still flaky.
"""

from __future__ import annotations

import anyio
import pytest
from conftest import headline_of, summary_of
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

FLIP = "test_history.py::test_flip"
REAL = "test_history.py::test_real_failure"


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text


async def test_five_calls_tell_the_flip_flaky_and_the_real_failure_failing_before(project, connect):
    root = project("flaky_history")
    results = []
    with anyio.fail_after(120):
        async with connect(root) as conn:
            for _ in range(5):
                results.append(await conn.session.call_tool("execute_tests", {}))
            (root / "test_history.py").write_text((root / "test_history.py").read_text() + "\n# edited\n")
            after_edit = await conn.session.call_tool("execute_tests", {})

    first = results[0].structured_content
    assert "history" not in first, "nothing to compare the first call with"
    fifth = results[4]
    assert not fifth.is_error, fifth
    s = fifth.structured_content
    assert s["history"] == {"runs": 5, "new": 0, "failing_before": 1, "flaky": 1}, s
    by_id = {g["node_ids"][0]: g for g in s["failures"]}
    assert by_id[FLIP].get("history") == "flaky, failed 3 of the last 5 runs", s["failures"]
    assert by_id[FLIP].get("new", 0) == 0, s["failures"]
    assert by_id[REAL].get("history") == "failing for 5 runs", s["failures"]
    assert [g["node_ids"][0] for g in s["failures"]] == [REAL, FLIP], "flaky last"
    text = text_of(fifth)
    assert f"\n### FAILED (flaky, failed 3 of the last 5 runs): {FLIP} (line 17)\n" in text, text
    assert f"\n### FAILED (failing for 5 runs): {REAL} (line 21)\n" in text, text
    headline_of(text, s)
    assert summary_of(s, "total", "failed") == {"total": 3, "failed": 2}, s["summary"]
    assert "(new)" not in text, text

    # The sixth call, after an edit: the flip passes (even run); a flaky
    # test's pass fixes nothing, whatever was edited.
    s = after_edit.structured_content
    assert s["history"]["flaky"] == 0, s
    assert "Fixed" not in text_of(after_edit), text_of(after_edit)
    assert "Since the last run: 1 still failing\n" in text_of(after_edit), text_of(after_edit)
