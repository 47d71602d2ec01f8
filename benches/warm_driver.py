#!/usr/bin/env python3
"""Warm runs against cold runs through the MCP Python SDK (issue 50;
BENCHMARKS.md section 5e): the client side of the perf harness's `warm`
section (benches/perf/warm.rs), which prepares the suites, writes the
configuration, runs this with .venv-bench-warm's Python (it has `mcp`) and
prints the table from what this writes.

    .venv-bench-warm/bin/python benches/warm_driver.py --config CONFIG.json --out RESULTS.json

CONFIG.json: {"bin": pytest-mcp, "python": the interpreter `serve --python`
runs pytest with, "rounds": N, "timeout": seconds a call may take,
"suites": [{"name", "root", "env": {...}, "cases": [{"case", "target",
"edit"}]}]}: `target` is the node id or file passed as `node_ids`, `edit`
the test file (relative to `root`) appended to before each call.

Per suite, one session of `pytest-mcp serve --root ROOT --python PYTHON`
(started by the SDK's stdio client, so with the SDK's default environment
plus the suite's `env`: no PYTHONDONTWRITEBYTECODE, so pytest keeps its
rewritten-assertion caches as in a developer's shell). Per case: one
untimed `warm: true` call then one `warm: false` call (bytecode, the page
cache, the warm process started), then `rounds` paired rounds, each of two
timed calls, the order turning each round: a harmless comment line
appended to the test file (so pytest must read and rewrite it again), then
`execute_tests {"node_ids": [target], "warm": true}`; another line, then
the same with `"warm": false`. Each call's wall time is taken in the client,
from the request sent to the answer read. Every answer must be a pass of
the same number of tests as the first; a warm answer's structured result
(`structuredContent`) carries `warm: {"saved_seconds": x}` when the run was
warm, a cold one never does. After each warm call, the resident memory
(VmRSS, /proc) of the warm process: the server's descendants whose command
line holds `pytest_mcp_warm`, less the per-run children they forked.

A server that refuses the `warm` argument (a build before issue 50) is
said on standard error and in RESULTS.json (`refused`); the rounds then
time cold calls only, with no `warm` argument, so the cold figures still
come out. The edited files are restored when a case ends.

Progress on standard error; nothing on standard output.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

WARM_MARK = b"pytest_mcp_warm"


def log(message: str) -> None:
    print(f"warm: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# Processes (/proc)
# ---------------------------------------------------------------------------


def parent_of(pid: int) -> int | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name is in parentheses and may hold spaces.
    return int(stat.rsplit(")", 1)[1].split()[1])


def cmdline_of(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return b""


def rss_of(pid: int) -> int:
    """VmRSS in bytes (0 when the process is gone)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def parents() -> dict[int, int]:
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            parent = parent_of(int(entry.name))
            if parent is not None:
                table[int(entry.name)] = parent
    return table


def server_pid(root: str) -> int | None:
    """The `pytest-mcp serve --root ROOT` this process started."""
    me = os.getpid()
    for pid, parent in parents().items():
        args = cmdline_of(pid).split(b"\0")
        if parent == me and b"serve" in args and root.encode() in args:
            return pid
    return None


def warm_rss(server: int | None) -> int | None:
    """The summed VmRSS of the warm processes under `server` (their
    per-run children left out), or None when there is none."""
    if server is None:
        return None
    table = parents()
    below = {server}
    grew = True
    while grew:
        grew = False
        for pid, parent in table.items():
            if parent in below and pid not in below:
                below.add(pid)
                grew = True
    warm = {pid for pid in below if pid != server and WARM_MARK in cmdline_of(pid)}
    roots = [pid for pid in warm if table.get(pid) not in warm]
    return sum(rss_of(pid) for pid in roots) if roots else None


# ---------------------------------------------------------------------------
# Calls
# ---------------------------------------------------------------------------


class Refused(Exception):
    """The server refused the `warm` argument."""


def text_of(result: Any) -> str:
    return "".join(getattr(c, "text", "") for c in result.content)


async def call(session: ClientSession, target: str, warm: bool | None, timeout: float) -> tuple[float, dict[str, Any]]:
    """One timed execute_tests call; `warm` None leaves the argument out.
    Returns the wall time and the structured result."""
    arguments: dict[str, Any] = {"node_ids": [target]}
    if warm is not None:
        arguments["warm"] = warm
    started = time.perf_counter()
    with anyio.fail_after(timeout):
        result = await session.call_tool("execute_tests", arguments)
    wall = time.perf_counter() - started
    text = text_of(result)
    if result.is_error and text.startswith("Invalid params: warm"):
        raise Refused(text.strip().splitlines()[0])
    structured = result.structured_content or {}
    summary = structured.get("summary") or {}
    if result.is_error or summary.get("failed") or summary.get("errors") or not summary.get("total"):
        raise SystemExit(
            f"warm: execute_tests {json.dumps(arguments)} did not pass: {text[:1500]}"
        )
    return wall, structured


def append_line(path: Path, n: int) -> None:
    with open(path, "a") as f:
        f.write(f"# pytest-mcp warm bench: edit {n}\n")


async def measure(session: ClientSession, cfg: dict[str, Any], suite: dict[str, Any], case: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    root = Path(suite["root"])
    target, edit = case["target"], root / case["edit"]
    timeout = float(cfg.get("timeout", 300))
    label = f"{suite['name']}, {case['case']}"
    original = edit.read_bytes()
    out: dict[str, Any] = {
        "case": case["case"],
        "target": target,
        "cold": [],
        "warm": [],
        "saved": [],
        "warm_marked": 0,
        "cold_marked": 0,
        "rss": [],
    }
    edits = 0

    async def timed(warm: bool | None) -> tuple[float, dict[str, Any]]:
        nonlocal edits
        edits += 1
        append_line(edit, edits)
        wall, s = await call(session, target, warm, timeout)
        tests = s["summary"]["total"]
        if out.setdefault("tests", tests) != tests:
            raise SystemExit(f"warm: {label}: {tests} tests ran, {out['tests']} the first time")
        return wall, s

    try:
        # Untimed: bytecode and caches written, the warm process started.
        if state["refused"] is None:
            try:
                await timed(True)
            except Refused as refusal:
                state["refused"] = str(refusal)
                log(
                    f"pytest-mcp serve refused the `warm` argument ({refusal}): this build has no "
                    "warm runs (issue 50). Timing cold runs only, with no `warm` argument."
                )
        elif not state["refused"]:
            await timed(True)
        supported = not state["refused"]
        await timed(False if supported else None)
        rounds = int(cfg["rounds"])
        for r in range(rounds):
            order = [True, False] if r % 2 == 0 else [False, True]
            walls = {}
            for warm in order if supported else [False]:
                wall, s = await timed(warm if supported else None)
                walls[warm] = wall
                if warm and supported:
                    out["warm"].append(wall)
                    marked = s.get("warm")
                    if isinstance(marked, dict):
                        out["warm_marked"] += 1
                        if isinstance(marked.get("saved_seconds"), (int, float)):
                            out["saved"].append(float(marked["saved_seconds"]))
                    rss = warm_rss(state["server"])
                    if rss is not None:
                        out["rss"].append(rss)
                else:
                    out["cold"].append(wall)
                    if "warm" in s:
                        out["cold_marked"] += 1
            shown = ", ".join(f"{'warm' if w else 'cold'} {walls[w]:.2f} s" for w in walls)
            log(f"{label}: round {r + 1}/{rounds}: {shown}")
    finally:
        edit.write_bytes(original)
    return out


async def run_suite(cfg: dict[str, Any], suite: dict[str, Any], state: dict[str, Any]) -> dict[str, Any]:
    root = suite["root"]
    args = ["serve", "--root", root, "--python", cfg["python"]]
    params = StdioServerParameters(command=cfg["bin"], args=args, cwd=root, env=suite.get("env") or None)
    server_log = Path(cfg.get("logs", root)) / f"{Path(root).name}-server.log"
    log(f"{suite['name']}: pytest-mcp {' '.join(args)} (stderr: {server_log})")
    cases = []
    with open(server_log, "w") as errlog:
        async with stdio_client(params, errlog=errlog) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                state["server"] = server_pid(root)
                for case in suite["cases"]:
                    cases.append(await measure(session, cfg, suite, case, state))
    return {"name": suite["name"], "cases": cases}


async def main_async(cfg: dict[str, Any]) -> dict[str, Any]:
    state: dict[str, Any] = {"refused": None, "server": None}
    suites = [await run_suite(cfg, suite, state) for suite in cfg["suites"]]
    return {"refused": state["refused"] or None, "suites": suites}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", required=True, help="the configuration (JSON) benches/perf/warm.rs writes")
    parser.add_argument("--out", required=True, help="where the results (JSON) go")
    parser.add_argument("--rounds", type=int, help="paired rounds per case (default: the configuration's)")
    a = parser.parse_args()
    cfg = json.loads(Path(a.config).read_text())
    if a.rounds:
        cfg["rounds"] = a.rounds
    results = anyio.run(main_async, cfg)
    Path(a.out).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
