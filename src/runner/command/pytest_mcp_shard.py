"""pytest-mcp's shard choice: a pytest plugin loaded (`-p pytest_mcp_shard`)
from pytest-mcp's private temporary directory for a run of one shard
(`pytest-mcp run --shard`); nothing is installed.

One pytest process collects the suite and runs the shard: once pytest has
collected (and `-m`, `-k` have deselected), this plugin hands every
collected node id, one a line, to the program PYTEST_MCP_SHARD names
(pytest-mcp itself, `select-shard`, which holds the plan) on its standard
input, and keeps the items whose ids it prints back; the others are
deselected, as pytest-split and `-k` deselect. So new tests are placed and
gone ones named from the very collection that runs, with no second pytest,
and no number of ids meets the command line's limit.

PYTEST_MCP_SHARD is the path of a file holding the program and its
arguments separated by NUL bytes (paths are bytes). pytest-xdist's workers
each collect and choose alike; the controller collects nothing.
"""

import os
import subprocess

import pytest

_ARGV_FILE = os.environ.get("PYTEST_MCP_SHARD")


def _argv():
    with open(_ARGV_FILE, "rb") as f:
        return f.read().split(b"\0")


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session, config, items):
    # trylast: after -m and -k deselected (the plan was made with the same
    # selection); before pytest's --lf, whose wrapper runs after every plain
    # hook (run --shard refuses --last-failed anyway).
    if not _ARGV_FILE:
        return
    ids = "".join(item.nodeid + "\n" for item in items)
    try:
        done = subprocess.run(
            _argv(),
            input=ids.encode("utf-8", "surrogateescape"),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except OSError as e:
        raise pytest.UsageError(f"pytest-mcp could not choose the shard's tests: {e}")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip()
        raise pytest.UsageError(f"pytest-mcp could not choose the shard's tests: {said}")
    keep = set(done.stdout.decode("utf-8", "surrogateescape").split("\n"))
    selected = [item for item in items if item.nodeid in keep]
    if len(selected) != len(items):
        config.hook.pytest_deselected(items=[item for item in items if item.nodeid not in keep])
        items[:] = selected
