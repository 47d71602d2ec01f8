"""Smoke test of an installed pytest-mcp, with nothing but Python's standard
library (release.yml runs it on each platform's wheel; scripts/sdist-check.sh
on the command installed from the sdist): `--version` prints the expected
version, and an MCP handshake over stdio (initialize, then tools/list)
answers with both tools.

Usage: python scripts/smoke.py PATH-TO-pytest-mcp VERSION
"""

import json
import subprocess
import sys
import tempfile


def main() -> int:
    command, version = sys.argv[1], sys.argv[2]
    shown = subprocess.run([command, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    if shown != f"pytest-mcp {version}":
        print(f"smoke: FAILED: --version printed {shown!r}, expected 'pytest-mcp {version}'", file=sys.stderr)
        return 1
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "smoke", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with tempfile.TemporaryDirectory() as root:
        server = subprocess.Popen([command, "serve", "--root", root], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True)
        assert server.stdin and server.stdout
        for message in messages:
            server.stdin.write(json.dumps(message) + "\n")
            server.stdin.flush()
        answers = {}
        while len(answers) < 2:
            line = server.stdout.readline()
            if not line:
                break
            reply = json.loads(line)
            if "id" in reply:
                answers[reply["id"]] = reply
        server.stdin.close()
        server.wait(timeout=30)
    server_name = answers.get(1, {}).get("result", {}).get("serverInfo", {}).get("name")
    tools = sorted(t["name"] for t in answers.get(2, {}).get("result", {}).get("tools", []))
    if tools != ["discover_tests", "execute_tests"]:
        print(f"smoke: FAILED: tools/list answered {answers.get(2)!r}", file=sys.stderr)
        return 1
    print(f"smoke: {shown}; MCP handshake with {server_name}: tools {', '.join(tools)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
