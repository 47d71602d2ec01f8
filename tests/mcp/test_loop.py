"""The agent's loop through the MCP Python SDK, as an agent drives it: one
server, many `execute_tests` calls, the project edited between them.

tests/projects/agent_loop fails in three root causes (cart, stock,
prices), each in its own module; each test file imports one module. The
loop: run (three groups), fix the cart, run (one group fixed, nothing
new), break the users module, run (the new failure first, marked new),
fix the rest, run, then with `affected: true` edit one module and run
(only the tests that import it run; the answer says how many were left
out). Every answer's structuredContent carries the same counts as its
text. benches/perf/loop_tokens.rs walks the same steps for the token
figures.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from conftest import headline_of
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

# The counts that are not zero, in this order.
SINCE = re.compile(
    r"^Since the last run: (?:(\d+) fixed)?(?:, )?(?:(\d+) new failures?)?(?:, )?"
    r"(?:(\d+) still failing)?(?:, )?(?:(\d+) gone)?$",
    re.M,
)


def text_of(result: CallToolResult) -> str:
    assert result.content and result.content[0].type == "text", result
    return result.content[0].text


async def run(conn, **args: Any) -> tuple[str, dict[str, Any]]:
    result = await conn.session.call_tool("execute_tests", args)
    assert not result.is_error, text_of(result)
    assert result.structured_content is not None, result
    return text_of(result), result.structured_content


def edit(root: Path, file: str, old: str, new: str) -> None:
    path = root / file
    text = path.read_text()
    assert old in text, f"{file} has no {old!r}"
    path.write_text(text.replace(old, new))


def since(text: str) -> tuple[int, ...] | None:
    """(fixed, new, still failing, gone) from the answer's second line."""
    lines = text.splitlines()
    match = SINCE.match(lines[1]) if len(lines) > 1 else None
    if match is None:
        return None
    return tuple(int(g or 0) for g in match.groups())


def headings(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("### ")]


def same_counts(text: str, structured: dict[str, Any]) -> None:
    """structuredContent says what the text says."""
    counts = since(text)
    changes = structured.get("changes")
    if counts is None:
        assert changes is None, structured
        return
    assert changes == dict(zip(("fixed", "new_failures", "still_failing", "gone"), counts)), (changes, text)
    groups = headings(text)
    assert len(structured["failures"]) >= len(groups), (structured, text)
    marked_new = [h for h in groups if "new)" in h]
    assert sum(1 for g in structured["failures"] if g.get("new")) == len(marked_new), (structured, text)


async def test_the_agent_loop(project, connect):
    root = project("agent_loop")
    async with connect(root) as conn:
        # 1. The first run: no cache yet, three root causes.
        text, s = await run(conn)
        assert since(text) is None, text
        assert len(headings(text)) == 3, text
        assert "changes" not in s
        same_counts(text, s)

        # 2. One cause fixed: said in one line, nothing new.
        edit(root, "shop/cart.py", "return amount + 1", "return amount")
        text, s = await run(conn)
        assert since(text) == (4, 0, 5, 0), text
        assert text.splitlines()[2] == "Fixed: tests/test_cart.py::test_total (all 4 cases)", text
        assert not any("(new)" in h for h in headings(text)), text
        assert len(headings(text)) == 2, text
        same_counts(text, s)

        # 3. Something else broken: the new failure first, marked new.
        edit(root, "shop/users.py", "(first[:1] + last[:1]).upper()", "(first[:1] + last[:1])")
        text, s = await run(conn)
        assert since(text) == (0, 1, 5, 0), text
        assert headings(text)[0] == "### FAILED (new): tests/test_users.py::test_initials (line 13)", text
        assert s["failures"][0]["node_ids"] == ["tests/test_users.py::test_initials"], s
        assert s["failures"][0]["new"] == 1, s
        same_counts(text, s)

        # 4. The rest fixed, through the ids the answers gave.
        edit(root, "shop/users.py", "(first[:1] + last[:1])", "(first[:1] + last[:1]).upper()")
        edit(root, "shop/stock.py", "return STOCK[name]", "return STOCK.get(name, 0)")
        edit(root, "shop/prices.py", 'raise RuntimeError("rates file missing: rates.csv")', 'return {"USD": 1.1, "GBP": 0.85}')
        text, s = await run(conn, node_ids=["tests/test_users.py", "tests/test_stock.py", "tests/test_prices.py"])
        assert s["status"] == "success", s
        headline_of(text, s)
        assert since(text) == (6, 0, 0, 0), text
        same_counts(text, s)

        # 5. Only what an edit touches: the first run with `affected`
        # records which code each test runs (every test runs) ...
        text, s = await run(conn, affected=True)
        assert s["status"] == "success", s
        headline_of(text, s)
        assert s["summary"]["total"] == 14, s
        assert "records" in text, text
        # ... then an edit to one module runs only the tests importing it.
        edit(root, "shop/stock.py", "return STOCK.get(name, 0)", "return STOCK.get(name)")
        text, s = await run(conn, affected=True)
        assert s["summary"]["total"] == 4, text
        assert {g["node_ids"][0].split("::")[0] for g in s["failures"]} == {"tests/test_stock.py"}, s
        assert since(text) == (0, 3, 0, 0), text
        assert "Affected only (pytest-testmon): 4 ran, 10 unaffected left out." in text, text
        same_counts(text, s)
