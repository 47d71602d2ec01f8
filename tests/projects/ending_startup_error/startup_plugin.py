"""A plugin that fails as pytest starts, the way pytest-env's `{PWD}` does
when the environment has no PWD (an MCP client starting the server
without one): pytest prints the traceback and exits 1 before any test is
collected."""

import os


def pytest_load_initial_conftests(early_config, parser, args):
    os.environ["DATABASE_URL"] = "sqlite:///" + os.environ["PYTEST_MCP_TEST_NO_SUCH_VARIABLE"]
