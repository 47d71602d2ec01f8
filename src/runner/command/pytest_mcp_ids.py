"""pytest-mcp's shard ids: a pytest plugin loaded (`-p pytest_mcp_ids`) from
pytest-mcp's private temporary directory for a run of one shard
(`pytest-mcp run --shard`); nothing is installed.

A shard may hold tens of thousands of node ids, more than a command line
carries (the kernel's limit on arguments). pytest-mcp writes them to the
file named by PYTEST_MCP_IDS, one a line, ends pytest's arguments with `--`,
and this plugin appends the ids after it in pytest_load_initial_conftests,
the hook pytest documents for changing the arguments; they are then read
as pytest reads any test ids given on its command line. pytest's own
`@file` does the same from pytest 8.2 on only; this works with any pytest
pytest-mcp runs.

pytest-xdist's workers parse the controller's original arguments again, so
the plugin is loaded there too, and appends the same ids.
"""

import os


def pytest_load_initial_conftests(early_config, parser, args):
    path = os.environ.get("PYTEST_MCP_IDS")
    if not path:
        return
    with open(path, encoding="utf-8", newline="\n") as ids:
        args.extend(line for line in ids.read().split("\n") if line)
