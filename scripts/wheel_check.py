"""The installed wheel as an MCP client starts it: called by
scripts/wheel-check.sh with the fresh venv the wheel went into.

1. The installed distribution's metadata (name, version, licence, summary,
   README, project URLs) is what pyproject.toml and Cargo.toml say.
2. The README's install commands name that distribution.
3. Every client configuration of the README's Install section (Claude Code,
   Claude Desktop, Cursor, VS Code, Codex) is started as written, with the
   venv's bin directory first on PATH and a temporary project for the
   placeholders: the MCP handshake names pytest-mcp and its version, lists
   exactly execute_tests and discover_tests, and discover_tests finds the
   project's one test (the root the configuration gives is the project).

Usage: python scripts/wheel_check.py VENV_DIR
Runs with the interpreter that has the MCP Python SDK (.venv).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

import anyio
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

REPO = Path(__file__).resolve().parent.parent
CLIENTS = {"Claude Code", "Claude Desktop", "Cursor", "VS Code", "Codex"}
TOOLS = {"execute_tests", "discover_tests"}
PLACEHOLDERS = ("${workspaceFolder}", "/absolute/path/to/project")


def fail(message: str) -> None:
    print(f"wheel-check: FAILED: {message}", file=sys.stderr)
    sys.exit(1)


def cargo_version() -> str:
    return tomllib.loads((REPO / "Cargo.toml").read_text())["package"]["version"]


def check_metadata(venv: Path, project: dict) -> None:
    """The metadata pip installed, read back through importlib.metadata in
    the fresh venv."""
    script = (
        "import importlib.metadata as m, json; d = m.metadata('mcp-server-pytest'); "
        "print(json.dumps({k: d.get_all(k) for k in set(d.keys())} | {'body': d.get_payload()}))"
    )
    out = subprocess.run([venv / "bin" / "python", "-c", script], capture_output=True, text=True)
    if out.returncode != 0:
        fail(f"mcp-server-pytest is not installed in {venv}: {out.stderr}")
    meta = json.loads(out.stdout)
    expected = {
        "Name": [project["name"]],
        "Version": [cargo_version()],
        "License-Expression": [project["license"]],
        "Summary": [project["description"]],
        "Requires-Python": [project["requires-python"]],
        "License-File": project["license-files"],
    }
    for key, value in expected.items():
        if meta.get(key) != value:
            fail(f"metadata {key} is {meta.get(key)}, expected {value}")
    urls = {u.split(", ", 1)[0] for u in meta.get("Project-URL") or []}
    if urls != set(project["urls"]):
        fail(f"metadata Project-URL names {sorted(urls)}, pyproject.toml {sorted(project['urls'])}")
    if meta.get("Classifier") != project["classifiers"]:
        fail(f"metadata classifiers {meta.get('Classifier')}")
    if "# pytest-mcp" not in (meta.get("body") or ""):
        fail("the README is not the package's long description")


def install_section() -> str:
    readme = (REPO / "README.md").read_text()
    match = re.search(r"^## Install\n(.*?)^## ", readme, re.S | re.M)
    if not match:
        fail("README.md has no '## Install' section")
    return match.group(1)


def configurations(section: str, dist: str) -> dict[str, tuple[str, list[str]]]:
    """client -> (command, args) from the code blocks of the Install section;
    each block belongs to the last bold client name before it."""
    found: dict[str, tuple[str, list[str]]] = {}
    client = None
    for match in re.finditer(r"\*\*([^*]+)\*\*|```(\w+)\n(.*?)```", section, re.S):
        if match.group(1):
            client = match.group(1)
            continue
        lang, body = match.group(2), match.group(3)
        if client is None:
            check_install_commands(body, dist)
            continue
        if lang == "sh":
            argv = shlex.split(body)
            if argv[:3] != ["claude", "mcp", "add"] or "--" not in argv:
                fail(f"{client}: not a `claude mcp add NAME -- COMMAND` line: {body!r}")
            rest = argv[argv.index("--") + 1 :]
            found[client] = (rest[0], rest[1:])
        elif lang == "json":
            doc = json.loads(body)
            servers = doc.get("mcpServers") or doc.get("servers")
            server = servers["pytest"]
            if "servers" in doc and server.get("type") != "stdio":
                fail(f"{client}: VS Code's `servers` entry needs type stdio")
            found[client] = (server["command"], server["args"])
        elif lang == "toml":
            server = tomllib.loads(body)["mcp_servers"]["pytest"]
            found[client] = (server["command"], server["args"])
        else:
            fail(f"{client}: a ```{lang} block is not a configuration")
        client = None
    if set(found) != CLIENTS:
        fail(f"README Install section configures {sorted(found)}, expected {sorted(CLIENTS)}")
    return found


def check_install_commands(body: str, dist: str) -> None:
    lines = [line.split("#")[0].split() for line in body.splitlines()]
    wanted = {
        ("uvx", "--from", dist, "pytest-mcp", "serve"),
        ("pipx", "install", dist),
        ("cargo", "install", "--path", "."),
    }
    if {tuple(words) for words in lines if words} != wanted:
        fail(f"README install commands are {lines}, expected {sorted(wanted)}")


async def handshake(client: str, command: str, args: list[str], bin_dir: Path, project: Path) -> str:
    if command != "pytest-mcp":
        fail(f"{client}: the command is {command!r}, not pytest-mcp")
    for placeholder in PLACEHOLDERS:
        args = [a.replace(placeholder, str(project)) for a in args]
    # As a client starts it: by name, found on PATH, in the project directory.
    env = {"PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    params = StdioServerParameters(command=command, args=args, cwd=str(project), env=env)
    with anyio.fail_after(60), open(project.parent / "server.log", "a") as log:
        async with stdio_client(params, errlog=log) as (read, write):
            async with ClientSession(read, write) as session:
                init = await session.initialize()
                info = init.server_info
                if (info.name, info.version) != ("pytest-mcp", cargo_version()):
                    fail(f"{client}: the server says it is {info.name} {info.version}")
                tools = {tool.name for tool in (await session.list_tools()).tools}
                if tools != TOOLS:
                    fail(f"{client}: tools/list gives {sorted(tools)}, expected {sorted(TOOLS)}")
                found = await session.call_tool("discover_tests", {"format": "json"})
                answer = json.loads(found.content[0].text)
                ids = [test["node_id"] for test in answer.get("tests", [])]
                if found.is_error or ids != ["test_one.py::test_one"]:
                    fail(f"{client}: discover_tests in the project gives {found.content[0].text[:500]}")
    return f"{client}: {info.name} {info.version}, tools {sorted(tools)}, found {ids[0]}"


def make_project(tmp: Path) -> Path:
    project = tmp / "project"
    project.mkdir()
    (project / "test_one.py").write_text("def test_one():\n    assert True\n")
    # The server picks <root>/.venv/bin/python: the test suite's, which has pytest.
    (project / ".venv").symlink_to(REPO / ".venv")
    return project


def main() -> None:
    if len(sys.argv) != 2:
        fail("usage: python scripts/wheel_check.py VENV_DIR")
    venv = Path(sys.argv[1]).resolve()
    project_meta = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    check_metadata(venv, project_meta)
    configs = configurations(install_section(), project_meta["name"])
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp))
        for client, (command, args) in sorted(configs.items()):
            try:
                line = anyio.run(handshake, client, command, args, venv / "bin", project)
            except SystemExit:
                raise
            except BaseException as error:  # noqa: BLE001 -- any failure is the check failing
                log = (Path(tmp) / "server.log").read_text(errors="replace")[-2000:]
                fail(f"{client}: {error!r}\nserver log:\n{log}")
            print(f"wheel-check: {line}")


if __name__ == "__main__":
    main()
