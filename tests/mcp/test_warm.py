"""Warm runs (issue 50, docs/warm.md) through the MCP Python SDK: a run after
each kind of change sees it exactly as a cold run does. Through one server,
a warm run, the change, then a warm run (forked, or cold when the warm
process found itself stale) and a run with `warm: false`: the two answers
after the change are the same (status, counts, failures), and differ from
the one before as the change implies; the run after the change, or the one
after it when the warm process went stale, was forked warm
(`structuredContent.warm`), so no test passes by never being warm.

The changes: the project's module, a test, the conftest's fixture,
pytest.ini, a package installed into the interpreter's venv (a throwaway
venv made here, so the shared .venv is never touched), an environment
variable (`pytest-mcp run --warm` beside a server). And a module that
starts a thread at import is not preloaded: it is imported by the run's
own process, and the server says so in its log. And a server started with
a minimal environment (no locale) runs warm at all.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest
from conftest import BIN, PYTHON, processes_in, structured_of, wait_until_gone
from mcp.client.stdio import get_default_environment

pytestmark = pytest.mark.anyio

MODULE = "warm_edits/calc.py"
TEST = "tests/test_calc.py"
CONFTEST = "tests/conftest.py"


def answer_of(s: dict[str, Any]) -> dict[str, Any]:
    """What must be the same in a warm and a cold run's answer: the verdict,
    the counts, the failures (not whether they are new: the server's
    history of the runs before says that) and collection errors."""
    return {
        "status": s["status"],
        "exit_code": s.get("exit_code"),
        "summary": s["summary"],
        "failures": [
            {k: f.get(k) for k in ("kind", "count", "message", "at", "node_ids", "more")}
            for f in s["failures"]
        ],
        "collection_errors": s["collection_errors"],
        "error": s.get("error"),
    }


async def run(conn, warm: bool = True, **args: Any) -> dict[str, Any]:
    result = await conn.session.call_tool("execute_tests", {"warm": warm, **args})
    s = structured_of(result)
    if not warm:
        assert "warm" not in s, s
    return s


def edit(path: Path, old: str, new: str) -> None:
    """Replaces old by new in path (of another length, so no cache keyed
    on size and whole-second mtime could miss it)."""
    text = path.read_text()
    assert old in text, (path, old)
    assert len(old) != len(new)
    path.write_text(text.replace(old, new))


async def changed_as_cold(conn, before: dict[str, Any]) -> dict[str, Any]:
    """After a change: a warm run, then a cold one, the same answer; if the
    warm process went stale (that run cold), one more warm run that is
    forked and still the same. Returns the answer."""
    first = await run(conn)
    cold = await run(conn, warm=False)
    assert answer_of(first) == answer_of(cold), (first, cold)
    if "warm" not in first:
        again = await run(conn)
        assert "warm" in again, f"no warm run after the stale one: {again}"
        assert answer_of(again) == answer_of(cold), (again, cold)
    assert answer_of(cold) != answer_of(before), cold
    return answer_of(cold)


async def warm_start(conn) -> dict[str, Any]:
    """The first runs: the first (which records what it imported) and the
    second, forked from a warm process that preloaded it; both pass."""
    first = await run(conn)
    second = await run(conn)
    assert "warm" in second, second
    assert answer_of(second) == answer_of(first), (first, second)
    return second


async def test_a_server_without_a_locale_runs_warm(project, connect):
    """A server started as MCP clients start it, with a minimal environment
    and no locale variable, still forks its runs. (At ac96fc1 it did not:
    CPython's locale coercion, PEP 538, set LC_CTYPE=C.UTF-8 in the warm
    process's os.environ, which the runs' environment lacked, so every warm
    process answered "stale: the environment changed (LC_CTYPE)".)"""
    root = project("warm_edits")
    env = {k: v for k, v in get_default_environment().items() if not k.startswith(("LANG", "LC_"))}
    with anyio.fail_after(120):
        async with connect(root, env=env) as conn:
            await warm_start(conn)


async def test_an_edit_to_a_project_module_is_seen(project, connect):
    root = project("warm_edits")
    with anyio.fail_after(120):
        async with connect(root) as conn:
            before = await warm_start(conn)
            assert before["status"] == "success", before
            edit(root / MODULE, "np.int64(21) * 2", "np.int64(2100) * 2")
            after = await changed_as_cold(conn, before)
            # An edit to the project's own code leaves the warm process
            # fresh: the run right after it is forked, with numpy (which
            # the project imports) imported ahead of the run.
            assert "warm" in await run(conn)
            ahead = (root / "numpy_ahead.txt").read_text().split()
            assert ahead[-1] == "True", ahead
    assert after["status"] == "failure", after
    assert after["summary"]["failed"] == 1, after
    [failure] = after["failures"]
    assert failure["node_ids"] == [f"{TEST}::test_answer"], failure
    assert "4200" in failure["message"], failure


@pytest.mark.parametrize(
    ("edited", "old", "new", "failing", "said"),
    [
        (TEST, '"before" == "before"', '"before" == "after edit"', "test_edited", "after edit"),
        (CONFTEST, 'return "hello"', 'return "goodbye"', "test_greeting", "goodbye"),
    ],
    ids=["a test", "a conftest fixture"],
)
async def test_an_edit_is_seen(project, connect, edited, old, new, failing, said):
    """An edit to a test or to a conftest's fixture, neither of which the
    warm process imports ahead, fails the test it breaks as a cold run
    does."""
    root = project("warm_edits")
    with anyio.fail_after(120):
        async with connect(root) as conn:
            before = await warm_start(conn)
            edit(root / edited, old, new)
            after = await changed_as_cold(conn, before)
    [failure] = after["failures"]
    assert failure["node_ids"] == [f"{TEST}::{failing}"], failure
    assert said in failure["message"], failure


async def test_an_edit_to_pytest_configuration_is_seen(project, connect):
    root = project("warm_edits")
    with anyio.fail_after(120):
        async with connect(root) as conn:
            before = await warm_start(conn)
            total = before["summary"]["total"]
            with open(root / "pytest.ini", "a") as f:
                f.write("python_functions = test_* check_*\n")
            after = await changed_as_cold(conn, before)
    assert after["summary"]["total"] == total + 1, after
    [failure] = after["failures"]
    assert failure["node_ids"] == [f"{TEST}::check_extra"], failure


# ---------------------------------------------------------------------------
# A throwaway venv: its site-packages sees the test interpreter's (pytest,
# the plugins) through a .pth file, so what is written into it never touches
# the shared .venv.
# ---------------------------------------------------------------------------


def _purelib(python: Path) -> Path:
    out = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    )
    return Path(out.stdout.strip())


@pytest.fixture
def venv(tmp_path: Path) -> tuple[Path, Path]:
    """(its python, its site-packages)."""
    home = tmp_path / "venv"
    subprocess.run([str(PYTHON), "-m", "venv", "--without-pip", str(home)], check=True)
    python = home / "bin" / "python"
    site_packages = _purelib(python)
    (site_packages / "shared_test_site.pth").write_text(f"{_purelib(PYTHON)}\n")
    subprocess.run([str(python), "-c", "import pytest"], check=True)
    return python, site_packages


def install_newpkg(site_packages: Path) -> None:
    package = site_packages / "newpkg"
    package.mkdir()
    (package / "__init__.py").write_text('VERSION = "1.0"\n')
    info = site_packages / "newpkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: newpkg\nVersion: 1.0\n")
    (info / "RECORD").write_text("")


async def test_a_package_installed_into_the_venv_is_seen(project, connect, venv):
    python, site_packages = venv
    root = project("warm_install")
    with anyio.fail_after(120):
        async with connect(root, python=python) as conn:
            before = await warm_start(conn)
            assert before["status"] == "success", before
            install_newpkg(site_packages)
            after = await changed_as_cold(conn, before)
    [failure] = after["failures"]
    assert failure["node_ids"] == ["tests/test_newpkg.py::test_newpkg_is_not_installed"], failure
    assert "newpkg 1.0 is installed" in failure["message"], failure


# ---------------------------------------------------------------------------
# The environment: `pytest-mcp run --warm` beside a running server
# ---------------------------------------------------------------------------


def cli_run(root: Path, env: dict[str, str], *, warm: bool) -> dict[str, Any]:
    args = [str(BIN), "run", "--root", str(root), "--python", str(PYTHON), "--format", "json", "--no-history"]
    if warm:
        args.append("--warm")
    done = subprocess.run(args, env=env, capture_output=True, text=True, timeout=60, cwd=str(root))
    assert done.stdout.strip(), (done.returncode, done.stderr)
    return json.loads(done.stdout)


def cli_answer(j: dict[str, Any]) -> dict[str, Any]:
    """What must be the same in two runs' ADR-006 JSON: the exit status,
    the counts, each test's outcome and message, collection errors."""
    return {
        "exit_code": j["exit_code"],
        "summary": {k: v for k, v in j["summary"].items() if k != "duration"},
        "tests": [(t["node_id"], t["outcome"], t["message"]) for t in j["tests"]],
        "collection_errors": j["collection_errors"],
    }


def parents(root: Path) -> list[str]:
    path = root / "warm_parent.txt"
    return path.read_text().split() if path.exists() else []


async def test_an_environment_variable_changed_is_seen(project, connect):
    root = project("warm_edits")
    # The server's environment: the SDK's default one plus the variable;
    # `run --warm` with exactly that environment forks from its warm
    # process, with another value of the variable it must run as cold does.
    same = {**get_default_environment(), "WARM_EDITS_VALUE": "one"}
    other = {**same, "WARM_EDITS_VALUE": "two"}
    with anyio.fail_after(120):
        async with connect(root, env={"WARM_EDITS_VALUE": "one"}) as conn:
            before = await warm_start(conn)
            assert before["status"] == "success", before
            # The server is warm again for the next run (the list grew after
            # the first, so its warm process was replaced: make sure the
            # replacement is ready by running once more).
            assert "warm" in await run(conn)
            (root / "warm_parent.txt").unlink()

            joined = await anyio.to_thread.run_sync(lambda: cli_run(root, same, warm=True))
            assert parents(root) == ["warm"], (parents(root), joined)
            assert joined["exit_code"] == 0, joined

            changed = await anyio.to_thread.run_sync(lambda: cli_run(root, other, warm=True))
            cold = await anyio.to_thread.run_sync(lambda: cli_run(root, other, warm=False))
            seen = parents(root)
    # The changed environment made the warm process stale: that run went
    # cold (as did the plain cold one).
    assert seen == ["warm", "cold", "cold"], seen
    assert cli_answer(changed) == cli_answer(cold), (changed, cold)
    assert cli_answer(changed) != cli_answer(joined), (changed, joined)
    assert cli_answer(cold)["exit_code"] == 1, cold
    failed = [t for t in cli_answer(cold)["tests"] if t[1] == "failed"]
    assert [t[0] for t in failed] == [f"{TEST}::test_environment"], failed
    assert "two" in failed[0][2], failed


# ---------------------------------------------------------------------------
# A module that starts a thread at import is not preloaded
# ---------------------------------------------------------------------------

THREADER = """\
import os
import threading
import time

STARTED = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
STARTED.start()
with open(os.environ["WARM_THREADER_LOG"], "a") as f:
    f.write(f"{os.getpid()}\\n")
"""


async def test_a_module_starting_a_thread_is_not_preloaded(project, connect, venv, tmp_path):
    python, site_packages = venv
    (site_packages / "threader.py").write_text(THREADER)
    root = project("warm_thread")
    imports = tmp_path / "threader-imports.txt"
    tests = tmp_path / "threader-tests.txt"
    env = {"WARM_THREADER_LOG": str(imports), "WARM_THREADER_TESTS": str(tests)}
    runs = []
    with anyio.fail_after(120):
        async with connect(root, python=python, env=env) as conn:
            for _ in range(3):
                runs.append(await run(conn))
                # The run's own process imported threader: the pid the test
                # wrote is among those threader wrote at import (a preloaded
                # threader would have written the warm process's pid only).
                # Other pids there are the warm processes that tried it.
                test_pid = tests.read_text().split()[-1]
                assert test_pid in imports.read_text().split(), (imports.read_text(), tests.read_text())
            cold = await run(conn, warm=False)
            log = conn.log
    for s in runs:
        assert answer_of(s) == answer_of(cold), (s, cold)
        assert s["status"] == "success", s
    # The runs after the first found threader in the list, and were forked
    # from a warm process started without it.
    assert all("warm" in s for s in runs[1:]), runs
    text = log.read_text(errors="replace")
    assert "importing threader started a thread, so it is not preloaded" in text, text[-3000:]
    # Four runs wrote their pids, each a process of its own.
    assert len(set(tests.read_text().split())) == 4, tests.read_text()


def warm_processes(root: Path) -> list[tuple[int, str]]:
    """The warm processes serving `root` (their working directory)."""
    return [(pid, cmd) for pid, cmd in processes_in(root, warm=True) if "pytest_mcp_warm" in cmd]


@pytest.mark.parametrize("how", ["closed", "killed"])
async def test_no_warm_process_outlives_its_server(project, connect, how):
    """The warm process ends with the server: when the client closes the
    session, and when the server is killed (SIGKILL: no code of it runs;
    the warm process sees its stdin end). At most one per interpreter."""
    root = project("warm_edits")
    with anyio.fail_after(120):
        async with connect(root) as conn:
            await warm_start(conn)
            await run(conn)
            living = warm_processes(root)
            assert len(living) == 1, living
            if how == "killed":
                os.kill(conn.process.pid, signal.SIGKILL)
                await wait_until_gone(root, 5.0, servers=True)
                return
    await wait_until_gone(root, 5.0, servers=True)
