"""Warm runs tell the plugin matrix as cold runs do (issue 50, docs/warm.md).

For every project of tests/plugins/ (the list test_plugins.py and
tests/plugins.rs run: each directory with an expect.json), one server,
served with the interpreter of the project's virtualenv
(.venv-plugins/<venv>/, made by `bash scripts/setup.sh`), runs
`execute_tests` three times in the same copy of the project:

1. warm (the default), so that the run records what it imported and the
   server starts a warm process holding it;
2. warm again: this one must have been forked from the warm process (its
   structuredContent has `warm`), or the comparison would prove nothing;
3. cold (`warm: false`): a fresh interpreter.

The second answer must equal the third: whether it is an error, the status,
the exit code and the exit reason, the summary counts, every failure group
(its ids, message, place), the collection errors, and the Markdown text,
durations masked. Runs 2 and 3 both follow an earlier run of the same copy,
so what a project keeps between runs (.pytest_cache, hypothesis's database)
is the same for both.

A project whose virtualenv is missing is skipped, saying which.
"""

from __future__ import annotations

import re
from typing import Any

import anyio
import pytest
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult
from test_plugins import NAMES, PLUGINS, call, expectations, interpreter, text_of

pytestmark = pytest.mark.anyio

# A duration as the answers write them: `0.12s`, `(0.1s)`, `1m 3s`, `12ms`.
DURATION = re.compile(r"\b\d+(?:\.\d+)?(?:ms|s|m)\b(?:\s\d+(?:\.\d+)?s\b)?")
# Keys of the structured result that vary from run to run, warm or cold.
VOLATILE = ("warm", "duration", "seconds", "elapsed", "started", "finished", "time")
# The server's history counts every run: the cold run, third, has one more
# behind it than the warm one (`failing for 3 runs`, `history.runs`).
# Object ids in reprs (`<Queue at 0x7f6e...>`, anyio's `cancel scope 7f0a...`).
ADDRESS = re.compile(r"\b(?:0x)?[0-9a-f]{10,16}\b")
# Each run's private directory (`--junitxml=/tmp/pytest-mcp-TubakE/junit.xml`
# in a crash's command line).
PRIVATE = re.compile(r"pytest-mcp-[A-Za-z0-9]{6}\b")
# How many lines of a crash's output came before its last ones: a warm
# child's stack dump (pytest-timeout's thread method) has the warm process's
# frames under pytest's; the lines shown are the same.
EARLIER = re.compile(r"\(… \d+ earlier lines\)")
HISTORY = re.compile(r"\b(failing|flaky|passing) for \d+ runs\b")


def masked(text: str) -> str:
    text = ADDRESS.sub("<addr>", DURATION.sub("<t>", text))
    text = EARLIER.sub("(… <n> earlier lines)", PRIVATE.sub("pytest-mcp-<tmp>", text))
    return HISTORY.sub(r"\1 for <n> runs", text)


def steady(value: Any) -> Any:
    """`value` (a structured result, or part of one) without the keys that
    vary from run to run and with every duration in its strings masked."""
    if isinstance(value, dict):
        return {
            k: steady(v)
            for k, v in value.items()
            if not any(word in k for word in VOLATILE) and k != "history" or k == "history" and isinstance(v, str)
        }
    if isinstance(value, list):
        return [steady(v) for v in value]
    if isinstance(value, str):
        return masked(value)
    return value


def answer(result: Any) -> dict[str, Any]:
    """What a run's answer tells, comparable between runs."""
    if isinstance(result, MCPError):
        return {"rpc_error": result.code, "message": masked(str(result)), "data": steady(result.data)}
    assert isinstance(result, CallToolResult), result
    s = result.structured_content or {}
    return {
        "is_error": result.is_error,
        "status": s.get("status"),
        "exit_code": s.get("exit_code"),
        "exit_reason": steady(s.get("exit_reason")),
        "summary": steady(s.get("summary")),
        "failures": steady(s.get("failures")),
        "collection_errors": steady(s.get("collection_errors")),
        "structured": steady(s),
        "text": masked(text_of(result)),
    }


def differences(warm: dict[str, Any], cold: dict[str, Any]) -> str:
    lines = []
    for key in sorted(set(warm) | set(cold)):
        if warm.get(key) != cold.get(key):
            lines.append(f"--- {key}, warm:\n{warm.get(key)!r}\n--- {key}, cold:\n{cold.get(key)!r}")
    return "\n".join(lines)


@pytest.mark.parametrize("name", NAMES)
async def test_a_warm_run_answers_as_a_cold_one(name, project, connect):
    expect = expectations(name)
    python = interpreter(name, expect)
    root = project(name, as_=f"{name}-warm", under=PLUGINS)
    with anyio.fail_after(180):
        async with connect(root, python=python) as conn:
            await call(conn, {})
            warm = await call(conn, {})
            cold = await call(conn, {"warm": False})
    # Crashed runs are errors (CallToolResult with isError, structured).
    for label, result in (("warm", warm), ("cold", cold)):
        assert isinstance(result, CallToolResult), (name, label, result)
        assert result.structured_content is not None, (name, label, result)
    assert "warm" not in cold.structured_content, (name, cold.structured_content.get("warm"))
    seen_warm, seen_cold = answer(warm), answer(cold)
    assert seen_warm == seen_cold, f"{name}: warm and cold answers differ\n{differences(seen_warm, seen_cold)}"
    assert "warm" in warm.structured_content, (
        f"{name}: the second run was not forked warm (no `warm` in its structuredContent); "
        f"see the server's log below for why"
    )
