"""A test that hangs after starting a child process that ignores SIGTERM.

pytest-mcp must end the whole process group at its time limit (SIGTERM, a
grace period, then SIGKILL), report the test that was running, and leave no
process behind. The pids go to files in the project directory so the
integration test can check that both are gone.
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


def test_quick():
    assert 1 + 1 == 2


def test_hangs_with_stubborn_child():
    # pytest itself ignores SIGTERM too, so only SIGKILL ends it.
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    (PROJECT / "pytest.pid").write_text(str(os.getpid()))
    pid_file = PROJECT / "child.pid"
    subprocess.Popen([sys.executable, "-c", CHILD, str(pid_file)])
    while not pid_file.exists():
        time.sleep(0.01)
    while True:
        time.sleep(600)
