"""Two tests that hang at once, one on each of two pytest-xdist workers,
each after starting a child process that ignores SIGTERM (as the worker
itself then does). With `workers: 2` and a time limit pytest-mcp must end
every process (the controller, both workers, both children), name both
hanging tests and report the quick test that finished.

xdist hands three tests to two workers round robin: the first worker runs
test_quick then test_hangs_two, the second test_hangs_one. Each process
writes its pid to a file named after its test in the project directory,
for the integration test to check that all are gone.
"""

import os
import signal
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


def _hang(name):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    (PROJECT / f"{name}.pid").write_text(str(os.getpid()))
    pid_file = PROJECT / f"{name}.child.pid"
    subprocess.Popen([sys.executable, "-c", CHILD, str(pid_file)])
    while not pid_file.exists():
        time.sleep(0.01)
    while True:
        time.sleep(600)


def test_quick():
    assert 1 + 1 == 2


def test_hangs_one():
    _hang("one")


def test_hangs_two():
    _hang("two")
