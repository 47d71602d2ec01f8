"""Captures what a real pytest run leaves behind, for the golden tests of
how runs end (tests/endings_golden.rs, golden/endings/<scenario>/).

    .venv/bin/python scripts/capture-ending.py tests/projects/ending_os_exit golden/endings/os_exit

Runs pytest on a copy of the project (in /tmp/pytest-mcp-ending/<name>, a
fixed place, so the paths in the files do not change from one capture to
the next) exactly as pytest-mcp's runner does (src/runner/command/mod.rs:
our event-log plugin, pytest-json-report written by that plugin, JUnit
XML in the xunit1 family), and writes into the scenario's folder:
report.json and junit.xml when pytest wrote them, events.jsonl, stdout.txt,
stderr.txt, and `ending`: `exit N` or `signal N`. The golden test gives
them to the runner's pure end (runner::conclude), as if pytest had just
ended.
"""

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PLUGIN_DIR = REPO / "src" / "runner" / "command"


def main() -> int:
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    project = Path(sys.argv[1]).resolve()
    out = Path(sys.argv[2]).resolve()
    work = Path("/tmp/pytest-mcp-ending") / project.name
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(project, work, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
    files = work / ".pytest-mcp"
    files.mkdir()
    env = dict(os.environ)
    for key in [k for k in env if k.startswith("PYTEST_")]:
        del env[key]
    env["PYTHONPATH"] = str(PLUGIN_DIR)
    env["PYTEST_MCP_EVENTS"] = str(files / "events.jsonl")
    env["PYTEST_MCP_JSON_REPORT"] = str(files / "report.json")
    argv = [
        sys.executable, "-m", "pytest", "-p", "pytest_mcp_events",
        "--json-report", "--json-report-file=none", "--json-report-omit", "collectors", "keywords", "traceback",
        f"--junitxml={files / 'junit.xml'}", "-o", "junit_family=xunit1",
    ]
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    out.mkdir(parents=True, exist_ok=True)
    for name in ("report.json", "junit.xml", "events.jsonl"):
        target = out / name
        if (files / name).exists():
            shutil.copyfile(files / name, target)
        elif target.exists():
            target.unlink()
    (out / "stdout.txt").write_bytes(done.stdout)
    (out / "stderr.txt").write_bytes(done.stderr)
    code = done.returncode
    ending = f"signal {-code}" if code < 0 else f"exit {code}"
    (out / "ending").write_text(ending + "\n")
    print(f"{project.name}: {ending}, {sorted(p.name for p in out.iterdir())}")
    return 0


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    sys.exit(main())
