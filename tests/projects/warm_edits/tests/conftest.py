import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# Whether numpy was imported before this conftest: only a warm process
# imports it that early (a cold run imports it with the test module).
import sys  # noqa: E402

with open(ROOT / "numpy_ahead.txt", "a") as _f:
    _f.write(f"{'numpy' in sys.modules}\n")


def pytest_sessionstart(session):
    """Records whether this run was forked by a warm process: its parent is
    `python -m pytest_mcp_warm` then."""
    try:
        parent = Path(f"/proc/{os.getppid()}/cmdline").read_bytes()
    except OSError:
        parent = b""
    warm = b"pytest_mcp_warm" in parent
    with open(ROOT / "warm_parent.txt", "a") as f:
        f.write(f"{'warm' if warm else 'cold'}\n")


@pytest.fixture
def greeting():
    return "hello"
