"""Fixtures for driving the real `pytest-mcp serve` through the MCP Python SDK.

The binary comes from PYTEST_MCP_BIN (tests/mcp.rs sets it to cargo's build
of it; run by hand, target/debug/pytest-mcp is used). The interpreter the
server runs pytest with is PYTEST_MCP_TEST_PYTHON, else .venv/bin/python
(`bash scripts/setup.sh` creates it). Every project is copied into the
test's tmp_path before it is served, so nothing is written into the
repository.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp.client.stdio as sdk_stdio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parents[2]
PROJECTS = REPO / "tests" / "projects"


def _binary() -> Path:
    value = os.environ.get("PYTEST_MCP_BIN")
    path = Path(value) if value else REPO / "target" / "debug" / "pytest-mcp"
    if not path.is_file():
        raise pytest.UsageError(
            f"pytest-mcp binary {path} does not exist: run these tests with `cargo test --test mcp`, "
            "or `cargo build` first"
        )
    return path.resolve()


def _python() -> Path:
    value = os.environ.get("PYTEST_MCP_TEST_PYTHON")
    path = Path(value) if value else REPO / ".venv" / "bin" / "python"
    if not path.is_file():
        raise pytest.UsageError(
            f"test interpreter {path} does not exist: run `bash scripts/setup.sh` in {REPO}"
        )
    return path


BIN = _binary()
PYTHON = _python()

# The --kill-grace every test server gets (the default is 2 s): the time a
# run's process group has between SIGTERM and SIGKILL. The hanging test
# projects ignore SIGTERM, so each ended run waits all of it; tests/runner/ending.rs
# checks the default.
KILL_GRACE = 0.2

# The protocol revisions the server negotiates: the initialize handshake's
# newest, and the 2026 revision reached through server/discover.
HANDSHAKE = "2025-11-25"
MODERN = "2026-07-28"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


# ---------------------------------------------------------------------------
# Figures printed at the end of the session
# ---------------------------------------------------------------------------

# Under pytest-xdist the tests run in worker processes: a figure travels to
# the controller as a user property of the test's report.
_FIGURES: list[str] = []
_CURRENT: list[pytest.Item] = []


def figure(line: str) -> None:
    """Records a measurement for the end-of-session summary (and prints it)."""
    if _CURRENT:
        _CURRENT[-1].user_properties.append(("figure", line))
    else:
        _FIGURES.append(line)
    print(line)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Any:
    _CURRENT.append(item)
    try:
        return (yield)
    finally:
        _CURRENT.pop()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.when == "teardown":
        _FIGURES.extend(value for name, value in report.user_properties if name == "figure")


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if _FIGURES:
        terminalreporter.section("pytest-mcp MCP server figures")
        for line in _FIGURES:
            terminalreporter.write_line(line)


# ---------------------------------------------------------------------------
# Projects
# ---------------------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path):
    """copy(name, as_=None, under=PROJECTS) copies tests/projects/<name> (or
    <under>/<name>) into tmp_path and returns the copy's resolved path."""

    def copy(name: str, as_: str | None = None, under: Path = PROJECTS) -> Path:
        dest = tmp_path / (as_ or name)
        shutil.copytree(
            under / name,
            dest,
            ignore=shutil.ignore_patterns(".pytest_cache", "__pycache__", "*.pyc"),
        )
        return dest.resolve()

    return copy


@pytest.fixture
def make_project(tmp_path: Path):
    """make(name, {relative path: text}) writes a small project into tmp_path."""

    def make(name: str, files: dict[str, str]) -> Path:
        root = tmp_path / name
        for rel, text in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return root.resolve()

    return make


# ---------------------------------------------------------------------------
# Answers: the substance, never the headline's words
# ---------------------------------------------------------------------------

# An answer's headline (its first line: the verdict, the duration, the
# counts) is worded in one place, src/render/view/status.rs. The tests here
# check what it says through the structured result (`structuredContent`: its
# `status` and its `summary` counts), or the ADR-006 JSON's, and of the text
# only that it opens with a headline: a change of wording must not break
# them.


def structured_of(result: Any) -> dict[str, Any]:
    """The tool result's structuredContent (every result that is not a
    JSON-RPC error or a refused request carries one, isError included)."""
    s = result.structured_content
    assert s is not None, result
    return s


def summary_of(s: dict[str, Any], *keys: str) -> dict[str, int]:
    """The named counts of a structured (or ADR-006 JSON) result's summary."""
    return {k: s["summary"][k] for k in keys}


def headline_of(text: str, structured: dict[str, Any] | None = None) -> str:
    """The answer's first line: its headline. Not empty, and, when the
    structured result carries the Markdown answer (`markdown`), the same as
    that Markdown's first line. The words are not checked."""
    assert text and text.strip(), f"empty answer: {text!r}"
    first = text.splitlines()[0]
    assert first.strip(), text
    carried = (structured or {}).get("markdown")
    if carried is not None:
        assert carried.splitlines()[0] == first, (first, carried[:300])
    return first


# ---------------------------------------------------------------------------
# Connections
# ---------------------------------------------------------------------------

# The SDK spawns the server in stdio_client and does not hand the process
# out; wrap its spawn function so a test can see the server's pid and exit
# status and close its stdin itself ("the client goes away").
_SPAWNED: dict[str, Any] = {}
_original_spawn = sdk_stdio._create_platform_compatible_process


async def _recording_spawn(command: str, args: list[str], *a: Any, **kw: Any) -> Any:
    process = await _original_spawn(command, args, *a, **kw)
    if "--root" in args:
        _SPAWNED[args[args.index("--root") + 1]] = process
    return process


sdk_stdio._create_platform_compatible_process = _recording_spawn


class RecordingWriteStream:
    """The session's write stream, keeping a copy of every message sent."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.sent: list[dict[str, Any]] = []

    async def send(self, item: Any, /) -> None:
        raw = item.message.model_dump_json(by_alias=True, exclude_unset=True)
        self.sent.append(json.loads(raw))
        await self.inner.send(item)

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> RecordingWriteStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


class RecordingReadStream:
    """The session's read stream, keeping a copy of every message received
    (and every line of stdout that was not a JSON-RPC message)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.received: list[dict[str, Any]] = []
        self.garbage: list[Exception] = []

    def _note(self, item: Any) -> Any:
        if isinstance(item, Exception):
            self.garbage.append(item)
        else:
            raw = item.message.model_dump_json(by_alias=True, exclude_unset=True)
            self.received.append(json.loads(raw))
        return item

    async def receive(self) -> Any:
        return self._note(await self.inner.receive())

    def __aiter__(self) -> RecordingReadStream:
        return self

    async def __anext__(self) -> Any:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self.inner.aclose()

    async def __aenter__(self) -> RecordingReadStream:
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self.aclose()


@dataclass
class Connection:
    session: ClientSession
    process: Any  # anyio.abc.Process of the server
    root: Path
    log: Path
    writes: RecordingWriteStream
    reads: RecordingReadStream
    protocol: str = HANDSHAKE

    @property
    def sent(self) -> list[dict[str, Any]]:
        return self.writes.sent

    @property
    def received(self) -> list[dict[str, Any]]:
        return self.reads.received


@asynccontextmanager
async def serve(
    root: Path,
    *,
    log: Path,
    protocol: str = HANDSHAKE,
    timeout: int | None = None,
    python: Path | None = None,
    env: dict[str, str] | None = None,
    kill_grace: float = KILL_GRACE,
) -> AsyncIterator[Connection]:
    """Starts `pytest-mcp serve --root <root> --kill-grace <kill_grace>`
    through the SDK's stdio client and yields an initialized session. The
    server's stderr goes to `log`. `python` replaces the test interpreter;
    `env` is added to the SDK's default environment of the server."""
    args = ["serve", "--root", str(root), "--python", str(python or PYTHON), "--kill-grace", str(kill_grace)]
    if timeout is not None:
        args += ["--timeout", str(timeout)]
    # Started from the repository, not the project: the root comes from
    # --root alone, as with a real client.
    params = StdioServerParameters(command=str(BIN), args=args, cwd=str(REPO), env=env)
    with open(log, "a") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            process = _SPAWNED.pop(str(root))
            writes = RecordingWriteStream(write)
            reads = RecordingReadStream(read)
            async with ClientSession(reads, writes) as session:
                if protocol == HANDSHAKE:
                    result = await session.initialize()
                    assert result.protocol_version == HANDSHAKE, result
                else:
                    result = await session.discover()
                    assert MODERN in result.supported_versions, result
                yield Connection(session, process, root, log, writes, reads, protocol)
    # stdout carries the protocol and nothing else.
    assert not reads.garbage, f"the server wrote non-JSON-RPC output to stdout: {reads.garbage!r}"


@pytest.fixture
def connect(tmp_path: Path):
    """connect(root, protocol=..., timeout=...) -> async context manager
    yielding a Connection; server logs are printed when the test fails."""
    logs: list[Path] = []

    def open_connection(root: Path, **kw: Any):
        log = tmp_path / f"server-{len(logs)}.log"
        logs.append(log)
        return serve(root, log=log, **kw)

    yield open_connection
    for log in logs:
        if log.exists():
            print(f"--- server stderr ({log.name}) ---")
            print(log.read_text(errors="replace")[-4000:])


# ---------------------------------------------------------------------------
# Processes
# ---------------------------------------------------------------------------


def process_state(pid: int) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[0]


def alive(pid: int) -> bool:
    """True while pid is a live process (zombies count as dead)."""
    return process_state(pid) not in (None, "Z", "X")


def _exe(pid: int) -> str | None:
    try:
        return os.readlink(f"/proc/{pid}/exe")
    except OSError:
        return None


def processes_in(root: Path, *, servers: bool = False, warm: bool = False) -> list[tuple[int, str]]:
    """Live processes whose command line or working directory is inside
    root: the server itself (only with servers=True: its command line names
    the root), its warm process (only with warm=True, or servers=True) and
    every process of a run."""
    needle = str(root).encode()
    me = os.getpid()
    warm = warm or servers
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        pid = int(entry.name)
        if pid == me or not alive(pid):
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        try:
            cwd = os.readlink(entry / "cwd")
        except OSError:
            cwd = ""
        if b"pytest_mcp_warm" in cmdline and not warm:
            # The server's warm process (docs/warm.md) works in the root
            # for the server's life; it is no run's.
            continue
        if needle in cmdline or cwd == str(root) or cwd.startswith(str(root) + "/"):
            is_server = _exe(pid) == str(BIN)
            if is_server and not servers:
                continue
            found.append((pid, cmdline.replace(b"\0", b" ").decode(errors="replace").strip()))
    return found


def recorded_pids(root: Path) -> dict[str, int | None]:
    """The pids runner_hang writes: pytest's own and its stubborn child's."""
    pids: dict[str, int | None] = {}
    for name in ("pytest.pid", "child.pid"):
        try:
            pids[name] = int((root / name).read_text().strip())
        except (OSError, ValueError):
            pids[name] = None
    return pids


def _belongs(pid: int, root: Path) -> bool:
    """A recorded pid still alive is the run's unless it was reused."""
    return any(p == pid for p, _ in processes_in(root))


async def wait_until_gone(root: Path, within: float, *, servers: bool = False) -> float:
    """Waits until no process of the run in `root` (and, with servers=True,
    no server serving it) is alive; returns how long that took. On failure
    the survivors are SIGKILLed, so nothing outlives the test, and the test
    fails naming them."""
    start = time.monotonic()
    recorded = recorded_pids(root)
    while True:
        living = [p for p in recorded.values() if p and alive(p) and _belongs(p, root)]
        others = processes_in(root, servers=servers)
        if not living and not others:
            return time.monotonic() - start
        if time.monotonic() - start > within:
            for pid in set(living) | {p for p, _ in others}:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            pytest.fail(
                f"processes of the run in {root} still alive {within:.1f}s later: recorded "
                f"{recorded} (alive: {living}); processes in the project: {others}"
            )
        await anyio.sleep(0.02)


async def wait_for_file(path: Path, within: float) -> None:
    with anyio.fail_after(within):
        while not path.exists():
            await anyio.sleep(0.02)


def kill_leftovers(root: Path) -> None:
    """Last-resort cleanup: SIGKILL anything still running in root."""
    for pid, _ in processes_in(root, servers=True):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


@pytest.fixture
def reaper():
    """Registers roots whose processes are SIGKILLed at teardown whatever
    happened, so a failing test leaves nothing running."""
    roots: list[Path] = []
    yield roots.append
    for root in roots:
        kill_leftovers(root)

