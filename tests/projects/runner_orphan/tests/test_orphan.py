"""Tests that start a child process ignoring SIGTERM and leave it running:
one passes, one then dies of SIGSEGV. pytest-mcp ends pytest's whole
process group when pytest exits, however it exits, so the child must not
outlive the run. The pids go to files in the project directory so the
integration test can check that both are gone.
"""

import ctypes
import os
import subprocess
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent

CHILD = """
import os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
with open(sys.argv[1] + ".tmp", "w") as f:
    f.write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(600)
"""


def _leave_a_child():
    (PROJECT / "pytest.pid").write_text(str(os.getpid()))
    pid_file = PROJECT / "child.pid"
    subprocess.Popen([sys.executable, "-c", CHILD, str(pid_file)])
    while not pid_file.exists():
        time.sleep(0.01)


def test_passes_and_leaves_a_child():
    _leave_a_child()


def test_segfaults_and_leaves_a_child():
    _leave_a_child()
    ctypes.string_at(0)
