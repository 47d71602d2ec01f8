"""Write docs/plugins.md: the plugin matrix as a table.

For every project of tests/plugins/ (one per popular pytest plugin, see
tests/plugins.rs), this script runs, each in a fresh copy and with the
interpreter of the project's virtualenv (.venv-plugins/<venv>/, made by
`bash scripts/setup.sh`):

1. plain pytest, keeping its closing line (`2 failed, 3 passed in 0.12s`,
   or pytest-sugar's `Results (0.06s):` and its counts) and exit status;
2. `pytest-mcp run`, keeping our Markdown's first line (and its second,
   when there is one) and our exit status;

and writes one row per project: the project, the plugin and its version (as
installed), pytest's closing line and exit status, ours. Projects whose
virtualenv is missing are listed as not run.

Run from the repository root with the dev venv, after `cargo build`:

    .venv/bin/python scripts/plugin-matrix.py

The binary is $PYTEST_MCP_BIN, else $CARGO_TARGET_DIR/debug/pytest-mcp,
else target/debug/pytest-mcp. Durations differ from one regeneration to
the next; everything else should not.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PLUGINS = REPO / "tests" / "plugins"
OUT = REPO / "docs" / "plugins.md"
CLOSING = re.compile(r"^=+ (.+ in [0-9.]+s(?: \([0-9:]+\))?) =+$")
# The caller's pytest settings must not change what the projects do.
DROPPED_ENV = ("PYTEST_ADDOPTS", "PYTEST_PLUGINS", "PYTEST_MCP_PYTHON", "PYTHONPATH")

INTRO = """\
# The plugin matrix

Small pytest projects of our own, one per popular plugin, each configured
the way real projects configure it (`tests/plugins/<project>/`, with what
it must be told in its `expect.json`), run by plain pytest and by
`pytest-mcp run` with the same interpreter. Each row: pytest's closing line
and exit status, then our Markdown's first line (and its second, when
there is one) and our exit status. `tests/plugins.rs` and
`tests/mcp/test_plugins.py` check these answers (counts, every failure's
message and place, the status, the reason pytest gave); this page shows
them. Durations vary from run to run.

Items that are not Python functions are among them (notebook cells under
nbval, sybil's examples in `.rst` files and docstrings, pytest-ruff's and
pytest-mypy's findings, a YAML spec collected by a `conftest.py`): each is
told in its own words, the text the item gives pytest, at the line it
names, never at a line of the plugin's own code. Plugins that run a failed
test again (pytest-rerunfailures, pytest-retry, `flaky`) make a test that
passed in the end passed and flaky, with its failed attempts.

The plugins' versions are pinned in `requirements-plugins.txt` and
installed by `bash scripts/setup.sh` into `.venv-plugins/<venv>/`: one
virtualenv shared by the plugins that do nothing until a project turns
them on, one each for pytest-randomly, pytest-sugar and hypothesis, which
change every run they are installed into, and for pytest-retry and
`flaky`, whose `flaky` marks clash with pytest-rerunfailures', and nbval,
which brings a Jupyter kernel ([development.md](development.md#tests)).

Regenerate it after `cargo build`:

```sh
.venv/bin/python scripts/plugin-matrix.py
```

| project | plugin | pytest's closing line | exit | ours | exit |
|---|---|---|---|---|---|
"""


def binary() -> Path:
    if os.environ.get("PYTEST_MCP_BIN"):
        return Path(os.environ["PYTEST_MCP_BIN"])
    target = Path(os.environ.get("CARGO_TARGET_DIR") or REPO / "target")
    return target / "debug" / "pytest-mcp"


def clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in DROPPED_ENV}


def run_in_copy(name: str, command: list[str]) -> subprocess.CompletedProcess[str]:
    """Runs `command` + [<copy>] in a fresh copy of the project."""
    with tempfile.TemporaryDirectory(prefix="plugin-matrix-") as tmp:
        root = Path(tmp) / name
        shutil.copytree(PLUGINS / name, root, ignore=shutil.ignore_patterns("__pycache__", ".pytest_cache"))
        return subprocess.run(
            [*command, str(root)],
            cwd=root,
            env=clean_env(),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
        )


def closing_line(output: str) -> str | None:
    """pytest's closing line without its `=` padding, or pytest-sugar's
    `Results (0.06s): 2 passed 1 failed`."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    if lines and (match := CLOSING.match(lines[-1])):
        return match.group(1)
    for i, line in enumerate(lines):
        if line.startswith("Results (") and line.endswith("):"):
            counts = [c for c in lines[i + 1 :] if re.fullmatch(r"\d+ \w+", c)]
            return " ".join([line, *counts])
    return None


def version(python: Path, plugin: str | None) -> str:
    code = f"import importlib.metadata as m; print(m.version({(plugin or 'pytest')!r}))"
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, env=clean_env())
    return out.stdout.strip() or "?"


def cell(text: str) -> str:
    """`text` as a table cell's code span (pipes escaped)."""
    text = text.replace("|", "\\|").replace("`", "'")
    return f"`{text}`"


def row(name: str) -> str:
    expect = json.loads((PLUGINS / name / "expect.json").read_text())
    plugin = expect["plugin"]
    python = REPO / ".venv-plugins" / expect["venv"] / "bin" / "python"
    shown = f"{plugin or 'pytest alone'}"
    if not python.is_file():
        return f"| {name} | {shown} | not run: {expect['venv']} venv missing | | | |"
    shown += f" {version(python, plugin)}"
    plain = run_in_copy(name, [str(python), "-m", "pytest", "--rootdir"])
    ours = run_in_copy(name, [str(binary()), "run", "--python", str(python), "--root"])
    closing = closing_line(plain.stdout)
    closing_cell = cell(closing) if closing else "none: the process ended first"
    lines = ours.stdout.splitlines()
    said = cell(lines[0]) if lines else "(nothing)"
    if len(lines) > 1 and lines[1].strip() and not lines[1].startswith("#"):
        said += "<br>" + cell(lines[1])
    return f"| {name} | {shown} | {closing_cell} | {plain.returncode} | {said} | {ours.returncode} |"


def main() -> int:
    if not binary().is_file():
        print(f"{binary()} does not exist: run `cargo build` first (or set PYTEST_MCP_BIN)", file=sys.stderr)
        return 1
    names = sorted(p.name for p in PLUGINS.iterdir() if (p / "expect.json").is_file())
    with ThreadPoolExecutor(max_workers=3) as pool:
        rows = list(pool.map(row, names))
    OUT.write_text(INTRO + "\n".join(rows) + "\n")
    print(f"wrote {OUT.relative_to(REPO)}: {len(rows)} projects")
    return 0


if __name__ == "__main__":
    sys.exit(main())
