"""`execute_tests` with `workers` (pytest-xdist) through the MCP Python SDK:
the same results and progress as without workers, a hang or a cancellation
under two workers that ends every process and names the test each worker
was running, and refusals naming `workers`.

The projects: tests/projects/workers (every outcome, slow cases the workers
share) and tests/projects/workers_hang (two tests hanging at once, one per
worker, each with a child ignoring SIGTERM; every process writes its pid to
a file named after its test).
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import KILL_GRACE, REPO, alive, figure, headline_of, structured_of, summary_of, wait_for_file, wait_until_gone
from mcp.shared.exceptions import MCPError
from mcp_types import CallToolResult

pytestmark = pytest.mark.anyio

INVALID_PARAMS = -32602
HUNG = ["tests/test_hang.py::test_hangs_one", "tests/test_hang.py::test_hangs_two"]
HANG_PIDS = ["one.pid", "one.child.pid", "two.pid", "two.child.pid"]
# Room for two workers to start on a busy machine before both tests hang:
# 8 s was once too little for the second worker beside two other CI jobs.
HANG_TIMEOUT = 15


def text_of(result: CallToolResult) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text", result
    return result.content[0].text


async def call(conn, args: dict[str, Any], **kw: Any) -> Any:
    """execute_tests; a JSON-RPC error is returned, not raised."""
    try:
        return await conn.session.call_tool("execute_tests", args, **kw)
    except MCPError as e:
        return e


def by_id(data: dict[str, Any]) -> dict[str, tuple[str, str | None]]:
    return {t["node_id"]: (t["outcome"], t["message"]) for t in data["tests"]}


def all_gone(root: Path) -> None:
    """Every pid workers_hang recorded was written and is no longer alive."""
    pids = {name: int((root / name).read_text()) for name in HANG_PIDS if (root / name).exists()}
    assert sorted(pids) == sorted(HANG_PIDS), f"not every hanging process got going: {pids}"
    living = {name: pid for name, pid in pids.items() if alive(pid)}
    assert not living, f"still alive: {living}"


async def test_workers_give_the_same_results_and_progress(project, connect):
    root = project("workers")
    seen: list[tuple[float, float | None, str | None]] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    answers: dict[str, Any] = {}
    timings: dict[str, float] = {}

    async def timed(name: str, args: dict[str, Any], progress: Any = None) -> None:
        start = time.monotonic()
        answers[name] = await call(conn, args, progress_callback=progress)
        timings[name] = time.monotonic() - start

    with anyio.fail_after(90):
        async with connect(root) as conn:
            async with anyio.create_task_group() as tg:
                tg.start_soon(timed, "plain", {"format": "json"})
                tg.start_soon(timed, "workers", {"format": "json", "workers": 2}, on_progress)
            await timed("auto", {"workers": "auto"})
            await anyio.sleep(0.2)  # progress callbacks run as tasks of their own
    figure(
        "workers project over MCP: "
        + ", ".join(f"{name} {seconds:.2f}s" for name, seconds in timings.items())
        + " (plain and workers: 2 at once)"
    )
    plain, workers = (json.loads(text_of(answers[name])) for name in ("plain", "workers"))
    assert "2 workers [" in workers["text_output"], workers["text_output"][-2000:]
    assert plain["exit_code"] == workers["exit_code"] == 1
    plain["summary"].pop("duration")
    workers["summary"].pop("duration")
    assert workers["summary"] == plain["summary"]
    assert by_id(workers) == by_id(plain)
    total = plain["summary"]["total"]
    assert total == len(plain["tests"]) and plain["summary"]["failed"] > 0, plain["summary"]

    # Progress counts up to the tests collected, naming tests that ran.
    values = [p for p, _, _ in seen]
    figure(f"progress under 2 workers: {len(seen)} notifications: {[(p, t) for p, t, _ in seen]}")
    assert values and values == sorted(values), seen
    assert {t for _, t, _ in seen if t is not None} == {total}, seen
    assert max(values) >= total - 2, seen
    assert {m for _, _, m in seen if m} <= set(by_id(plain)), seen

    # Markdown with one worker per CPU: the same counts, every failure.
    text = text_of(answers["auto"])
    s = structured_of(answers["auto"])
    assert s["status"] == "failure", s
    headline_of(text, s)
    counts = ("total", "passed", "failed", "errors", "skipped")
    assert summary_of(s, *counts) == summary_of(plain, *counts), (s["summary"], plain["summary"])
    for node_id, (outcome, _) in by_id(plain).items():
        if outcome in ("failed", "error"):
            # The heading ends with the id, or the id and its line.
            assert re.search(rf": {re.escape(node_id)}( \(line \d+\))?$", text, re.M), (node_id, text)


async def test_a_hang_under_workers_ends_everything_and_names_each_test(project, connect, reaper):
    roots = {name: project("workers_hang", as_=name) for name in ("json", "markdown")}
    for root in roots.values():
        reaper(root)
    answers: dict[str, tuple[Any, float]] = {}

    async def run(name: str, args: dict[str, Any]) -> None:
        async with connect(roots[name]) as conn:
            start = time.monotonic()
            answer = await call(conn, {"workers": 2, "timeout": HANG_TIMEOUT, **args})
            answers[name] = (answer, time.monotonic() - start)
            await wait_until_gone(roots[name], 1.0)

    with anyio.fail_after(60):
        async with anyio.create_task_group() as tg:
            tg.start_soon(run, "json", {"format": "json"})
            tg.start_soon(run, "markdown", {})
    for name, root in roots.items():
        all_gone(root)
        _, elapsed = answers[name]
        figure(f"hang under 2 workers ({name}): answered {elapsed:.2f}s into a {HANG_TIMEOUT}s limit")
        assert HANG_TIMEOUT <= elapsed < HANG_TIMEOUT + 6, (name, elapsed)

    error, _ = answers["json"]
    assert isinstance(error, MCPError), error
    assert error.data["error_type"] == "timeout", error.data
    running = sorted((r["node_id"], r["worker"]) for r in error.data["running_tests"])
    assert [r[0] for r in running] == HUNG, error.data["running_tests"]
    assert running[0][1] != running[1][1] and all(w.startswith("gw") for _, w in running), running
    assert error.data["running_test"] in HUNG, error.data
    assert [(t["node_id"], t["outcome"]) for t in error.data["tests"]] == [
        ("tests/test_hang.py::test_quick", "passed")
    ], error.data["tests"]
    assert all(node_id in error.message for node_id in HUNG), error.message

    result, _ = answers["markdown"]
    assert isinstance(result, CallToolResult) and result.is_error is True, result
    text = text_of(result)
    s = structured_of(result)
    assert s["status"] == "timeout", s
    headline_of(text, s)
    assert "Running at the end (2):\n" in text, text
    for node_id in HUNG:
        assert f"\n- {node_id} (gw" in text, text


async def test_a_cancelled_call_under_workers_leaves_nothing(project, connect, reaper):
    root = project("workers_hang")
    reaper(root)
    outcome: dict[str, Any] = {}
    with anyio.fail_after(60):
        async with connect(root) as conn:
            scope = anyio.CancelScope()

            async def long_call() -> None:
                with scope:
                    outcome["result"] = await call(conn, {"workers": 2, "timeout": 120})
                outcome["cancelled"] = scope.cancelled_caught

            async with anyio.create_task_group() as tg:
                tg.start_soon(long_call)
                for name in HANG_PIDS:
                    await wait_for_file(root / name, 30)
                start = time.monotonic()
                scope.cancel()
            gone = await wait_until_gone(root, KILL_GRACE + 4.0)
            figure(
                f"cancel under 2 workers: every process gone {time.monotonic() - start:.2f}s "
                f"after the cancel ({gone:.2f}s after the call returned)"
            )
            assert outcome == {"cancelled": True}, outcome
            assert conn.process.returncode is None
    all_gone(root)


async def test_workers_are_refused_naming_workers(project, connect):
    root = project("runner_tripwire")
    nojson = REPO / ".venv-nojson" / "bin" / "python"
    assert nojson.is_file(), f"{nojson} is missing: run `bash scripts/setup.sh`"
    with anyio.fail_after(60):
        async with connect(root) as conn:
            for bad in [0, -1, 257, 1.5, "many", "2", [2]]:
                error = await call(conn, {"workers": bad, "format": "json"})
                assert isinstance(error, MCPError) and error.code == INVALID_PARAMS, (bad, error)
                assert error.data["field"] == "workers", error.data
                assert error.data["received_value"] == bad, error.data
                markdown = await call(conn, {"workers": bad})
                assert markdown.is_error is True, markdown
                assert text_of(markdown).startswith("Invalid params: workers must be "), text_of(markdown)
        assert not (root / "PYTEST_STARTED").exists()
        # An interpreter without pytest-xdist: what to install.
        async with connect(root, python=nojson) as conn:
            error = await call(conn, {"workers": 2, "format": "json"})
            markdown = await call(conn, {"workers": "auto"})
    assert isinstance(error, MCPError) and error.code == INVALID_PARAMS, error
    assert error.data["field"] == "workers" and error.data["received_value"] == 2, error.data
    assert "not installed" in error.data["detail"], error.data
    assert f"{nojson} -m pip install pytest-xdist" in error.data["detail"], error.data
    text = text_of(markdown)
    assert markdown.is_error is True and text.startswith("Invalid params: workers needs pytest-xdist"), text
    assert text.rstrip().endswith('(received "auto")'), text
