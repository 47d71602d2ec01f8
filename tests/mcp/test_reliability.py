"""Faults and hostile requests through the MCP Python SDK (issue 7).

What tests/mcp/test_server.py already covers is not repeated here: every
validation rule in both formats (test_invalid_params_in_both_formats, with
the tripwire), a hang with a SIGTERM-ignoring child (test_a_timeout_...), a
segfault (test_a_crash_...), cancellation, and the client going away three
ways. This file adds: option look-alikes inside expressions, request sizes
beyond what a command line can carry, an interpreter without pytest, an
unusable TMPDIR, and SIGTERM to the server with several runs in flight.
After each: a clear answer, and no process of the run left alive.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import PYTHON, alive, figure, headline_of, processes_in, structured_of, wait_for_file, wait_until_gone
from mcp.shared.exceptions import MCPError
from test_server import EXECUTION_FAILED, GRACE, INVALID_PARAMS, call, call_error, text_of

pytestmark = pytest.mark.anyio

TRIPWIRE = "PYTEST_STARTED"


# ---------------------------------------------------------------------------
# Hostile parameters that validation lets through or that only fail late
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "field, expression",
    [
        ("markers", "slow --rootdir=/"),
        ("markers", "x -p evil"),
        ("keywords", "test_a --collect-only"),
        ("keywords", "a -o python_files=*.txt"),
    ],
)
async def test_option_lookalikes_inside_an_expression_stay_one_expression(
    project, connect, field, expression
):
    """An expression that does not start with '-' passes validation, and
    reaches pytest as the single argument after -m/-k: pytest refuses it as
    an expression (a usage error, invalid params), it never becomes an option
    (no rootdir '/', no plugin 'evil', no collect-only run)."""
    root = project("runner_tripwire")
    with anyio.fail_after(60):
        async with connect(root) as conn:
            error = await call_error(conn, "execute_tests", {field: expression, "format": "json"})
            markdown = await call(conn, "execute_tests", {field: expression})
    assert error.code == INVALID_PARAMS, (error.code, error.message)
    assert error.data["error_type"] == "usage_error", error.data
    flag = "-m" if field == "markers" else "-k"
    command = error.data["command"]
    # One argument, exactly as given, right after the flag (the last one:
    # the command starts `python -m pytest`).
    at = len(command) - 1 - command[::-1].index(flag)
    assert command[at + 1] == expression, command
    assert f"Wrong expression passed to '{flag}': {expression}" in error.data["stderr"], error.data["stderr"]
    assert "rootdir: /\n" not in error.data["stdout"], error.data["stdout"]
    assert markdown.is_error is True, markdown
    assert expression in text_of(markdown), text_of(markdown)


async def test_requests_too_big_for_a_command_line_are_refused_before_pytest(project, connect):
    """Each node id within the length limit, together more than the kernel
    lets a command line carry (ARG_MAX, 2 MiB here): refused as invalid
    params naming node_ids, not a spawn failure; so are 10,001 ids and one
    id of 5,000 characters. pytest never starts (the tripwire)."""
    root = project("runner_tripwire")
    long_id = "tests/test_a.py::test_" + "a" * 3900
    cases = {
        "total": [long_id] * 700,
        "count": ["tests/test_a.py"] * 10_001,
        "one-long": ["tests/test_a.py::" + "x" * 5000],
    }
    errors: dict[str, MCPError] = {}
    with anyio.fail_after(60):
        async with connect(root) as conn:
            for name, ids in cases.items():
                errors[name] = await call_error(conn, "execute_tests", {"node_ids": ids, "format": "json"})
            # The server is fine afterwards, and the tripwire works.
            ok = json.loads(
                text_of(await call(conn, "execute_tests", {"node_ids": ["tests/test_a.py::test_a"], "format": "json"}))
            )
    for name, error in errors.items():
        assert error.code == INVALID_PARAMS, (name, error.code, error.message[:300])
        assert error.data["field"] == "node_ids", (name, error.data["field"])
        assert len(error.message) < 1000, (name, len(error.message))
    assert "at most" in errors["total"].data["detail"], errors["total"].data["detail"]
    assert ok["exit_code"] == 0 and ok["summary"]["passed"] == 1, ok
    assert (root / TRIPWIRE).exists(), "the valid request did not start pytest"


# ---------------------------------------------------------------------------
# The interpreter: no pytest, no interpreter at all
# ---------------------------------------------------------------------------


def python_without_pytest(tmp_path: Path) -> Path:
    """A fresh virtual environment without pip or pytest."""
    venv = tmp_path / "venv-no-pytest"
    subprocess.run([str(PYTHON), "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    probe = subprocess.run([str(python), "-c", "import pytest"], capture_output=True)
    assert probe.returncode != 0, "the fresh venv has pytest after all"
    return python


async def test_an_interpreter_without_pytest_is_a_clear_error(project, connect, tmp_path, reaper):
    root = project("runner_tripwire")
    reaper(root)
    python = python_without_pytest(tmp_path)
    missing = tmp_path / "no" / "such" / "python"
    answers: dict[str, Any] = {}
    with anyio.fail_after(60):
        for label, interpreter in (("no-pytest", python), ("no-interpreter", missing)):
            async with connect(root, python=interpreter) as conn:
                answers[label, "json"] = await call_error(conn, "execute_tests", {"format": "json"})
                answers[label, "markdown"] = await call(conn, "execute_tests", {})
                answers[label, "discover"] = await call_error(conn, "discover_tests", {"format": "json"})
                assert conn.process.returncode is None, "the server must survive"
            await wait_until_gone(root, 2.0, servers=True)
    for label, interpreter, words in (
        ("no-pytest", python, ["pytest is not installed", "-m pip install pytest"]),
        ("no-interpreter", missing, ["cannot start the Python interpreter", "--python"]),
    ):
        for kind in ("json", "discover"):
            error = answers[label, kind]
            assert error.code == EXECUTION_FAILED, (label, kind, error.code, error.message)
            assert error.data["error_type"] == "spawn", error.data
            assert str(interpreter) in error.message, error.message
            for w in words:
                assert w in error.message, (w, error.message)
        markdown = answers[label, "markdown"]
        assert markdown.is_error is True, markdown
        text = text_of(markdown)
        s = structured_of(markdown)
        assert s["status"] == "error", (label, s)
        headline_of(text, s)
        assert all(w in text for w in words), text
    assert not (root / TRIPWIRE).exists()


# ---------------------------------------------------------------------------
# TMPDIR that cannot hold the run's private directory
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["under-a-file", "missing"])
async def test_an_unusable_tmpdir_is_a_clear_error(project, connect, tmp_path, reaper, kind):
    """TMPDIR below a regular file, or a directory that does not exist (not
    chmod: CI may run as root): the answer names the path and TMPDIR, pytest
    never starts, the server lives on."""
    root = project("runner_tripwire")
    reaper(root)
    regular = tmp_path / "a-file"
    regular.write_text("not a directory\n")
    tmpdir = regular / "sub" if kind == "under-a-file" else tmp_path / "missing-dir"
    with anyio.fail_after(60):
        async with connect(root, env={"TMPDIR": str(tmpdir)}) as conn:
            error = await call_error(conn, "execute_tests", {"format": "json"})
            markdown = await call(conn, "execute_tests", {})
            discovery = await call(conn, "discover_tests", {})
            assert conn.process.returncode is None
        await wait_until_gone(root, 2.0, servers=True)
    assert error.code == EXECUTION_FAILED, (error.code, error.message)
    assert error.data["error_type"] == "spawn", error.data
    for text in (error.message, text_of(markdown), text_of(discovery)):
        assert "cannot create a private temporary directory" in text, text
        assert str(tmpdir) in text and "TMPDIR" in text, text
    assert markdown.is_error is True and discovery.is_error is True
    assert not (root / TRIPWIRE).exists(), "pytest started"


# ---------------------------------------------------------------------------
# SIGTERM to the server with several runs in flight
# ---------------------------------------------------------------------------

HANGING_TEST = '''\
"""Hangs after starting a child that ignores SIGTERM, as pytest does itself;
the pids go to pids/<this file's name>.{pytest,child}."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

PIDS = Path(__file__).resolve().parent.parent / "pids"
CHILD = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


def test_hangs():
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    name = Path(__file__).stem
    (PIDS / (name + ".pytest")).write_text(str(os.getpid()))
    subprocess.Popen([sys.executable, "-c", CHILD, str(PIDS / (name + ".child"))])
    while True:
        time.sleep(600)
'''

IN_FLIGHT = 4


async def test_sigterm_to_the_server_ends_every_run_in_flight(make_project, connect, reaper):
    files = {"pytest.ini": "[pytest]\ntestpaths = tests\n", "pids/.keep": ""}
    for i in range(IN_FLIGHT):
        files[f"tests/test_hang_{i}.py"] = HANGING_TEST
    root = make_project("hangs", files)
    reaper(root)
    outcomes: dict[int, Any] = {}

    async def in_flight(conn, i: int) -> None:
        try:
            outcomes[i] = await call(
                conn, "execute_tests", {"node_ids": [f"tests/test_hang_{i}.py"], "timeout": 300, "format": "json"}
            )
        except Exception as e:  # the connection closes under the call
            outcomes[i] = e

    with anyio.fail_after(90):
        async with connect(root) as conn:
            async with anyio.create_task_group() as tg:
                for i in range(IN_FLIGHT):
                    tg.start_soon(in_flight, conn, i)
                for i in range(IN_FLIGHT):
                    await wait_for_file(root / "pids" / f"test_hang_{i}.child", 60)
                pids = {
                    p.name: int(p.read_text()) for p in (root / "pids").iterdir() if p.suffix in (".pytest", ".child")
                }
                assert len(pids) == 2 * IN_FLIGHT and all(alive(p) for p in pids.values()), pids
                server = conn.process.pid
                start = time.monotonic()
                os.kill(server, signal.SIGTERM)
                with anyio.move_on_after(GRACE + 8.0):
                    while conn.process.returncode is None:
                        await anyio.sleep(0.02)
                exited = time.monotonic() - start
                status = conn.process.returncode
                gone = await wait_until_gone(root, 2.0, servers=True)
                survivors = {name: pid for name, pid in pids.items() if alive(pid)}
                with anyio.move_on_after(5):
                    while len(outcomes) < IN_FLIGHT:
                        await anyio.sleep(0.02)
                tg.cancel_scope.cancel()
    figure(
        f"SIGTERM to the server with {IN_FLIGHT} runs in flight (each pytest and its child ignoring "
        f"SIGTERM): server exited after {exited:.2f}s with status {status}; all {2 * IN_FLIGHT} "
        f"processes gone {exited + gone:.2f}s after the signal"
    )
    assert status is not None, f"the server did not exit within {GRACE + 8.0}s of SIGTERM"
    # Not before the grace: the runs' processes ignore SIGTERM, and the
    # server waits for them to end.
    assert GRACE <= exited < GRACE + 5.0, f"the server took {exited:.2f}s to exit"
    assert status == 0, status
    assert not survivors, survivors
    # No call got a result: the runs were ended, not finished.
    assert not any(getattr(o, "content", None) for o in outcomes.values()), outcomes
