"""Regenerate the pytest result fixtures used by the Rust tests.

For every project in tests/projects/ (or only the NAMEs given), this script:

1. copies the project into a fresh temporary directory, so no .pytest_cache or
   __pycache__ ends up in the repository;
2. runs pytest there with JSON report + JUnit XML (xunit1) output, capturing
   stdout and stderr together into terminal.txt;
3. runs pytest a second time for JUnit XML in the xunit2 family;
4. makes the outputs reproducible: the temporary project path becomes
   /home/user/project, the venv and base Python install paths (which show up
   in collection-error tracebacks) become /home/user/.venv and /usr, and
   object addresses ("at 0x7f3a...") become "at 0x7f0000000000";
5. writes pytest's exit code to exit_code.txt.

Report files are first written inside the temporary copy (so pytest's "report
saved to" lines name /home/user/project too) and then copied to the output
directory.

Outputs go to tests/fixtures/pytest/<NAME>/:
    report.json  junit-xunit1.xml  junit-xunit2.xml  terminal.txt  exit_code.txt

Timings, timestamps, the host name and the environment section of the JSON
report are left as pytest wrote them.

Run from the repository root with the pinned venv:

    .venv/bin/python scripts/gen-fixtures.py [NAME...]
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROJECTS = REPO / "tests" / "projects"
FIXTURES = REPO / "tests" / "fixtures" / "pytest"
PLACEHOLDER = "/home/user/project"
OUTPUTS = ["report.json", "junit-xunit1.xml", "junit-xunit2.xml", "terminal.txt", "exit_code.txt"]
ADDRESS = re.compile(r"\bat 0x[0-9a-f]{6,}")


def run_pytest(cwd, env, *args):
    cmd = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rA", *args]
    return subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, text=True)


def generate(name, env):
    out = FIXTURES / name
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="pytest-mcp-") as tmp:
        project = Path(tmp) / name
        shutil.copytree(PROJECTS / name, project,
                        ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        first = run_pytest(project, env,
                           f"--junitxml={project}/junit-xunit1.xml", "-o", "junit_family=xunit1",
                           "--json-report", f"--json-report-file={project}/report.json")
        (project / "terminal.txt").write_text(first.stdout, encoding="utf-8")
        second = run_pytest(project, env,
                            f"--junitxml={project}/junit-xunit2.xml", "-o", "junit_family=xunit2")
        if second.returncode != first.returncode:
            sys.exit(f"{name}: exit codes differ ({first.returncode} vs {second.returncode})")
        (project / "exit_code.txt").write_text(f"{first.returncode}\n")
        for output in OUTPUTS:
            text = (project / output).read_text(encoding="utf-8")
            for path, placeholder in [(project, PLACEHOLDER), (sys.prefix, "/home/user/.venv"),
                                      (sys.base_prefix, "/usr")]:
                text = text.replace(str(path), placeholder)
            text = ADDRESS.sub("at 0x7f0000000000", text)
            (out / output).write_text(text, encoding="utf-8")
    return first.returncode


def main():
    names = sys.argv[1:] or sorted(p.name for p in PROJECTS.iterdir() if p.is_dir())
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PY_COLORS", "FORCE_COLOR", "NO_COLOR")}
    env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", COLUMNS="80")
    for name in names:
        code = generate(name, env)
        summary = (FIXTURES / name / "terminal.txt").read_text(encoding="utf-8").rstrip().splitlines()[-1]
        print(f"{name:20} exit {code}  {summary}")


if __name__ == "__main__":
    main()
