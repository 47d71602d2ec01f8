"""coverage.py for a run with PYTEST_MCP_COVERAGE (`run --coverage`),
started by pytest_mcp_events as it is imported (before any conftest.py or
test module is) and saved when pytest unconfigures. Each process (an xdist
worker too) writes its own data file under the given path, with the
project's own settings (.coveragerc, setup.cfg, tox.ini, pyproject.toml);
pytest-mcp combines them and judges the change (docs/coverage.md).
"""

import os


def start():
    """The measuring Coverage, or None without PYTEST_MCP_COVERAGE or
    coverage.py (pytest-mcp checks it is there before the run)."""
    path = os.environ.get("PYTEST_MCP_COVERAGE")
    if not path:
        return None
    try:
        import coverage

        os.makedirs(os.path.dirname(path), exist_ok=True)
        cov = coverage.Coverage(data_file=path, data_suffix=True, config_file=True)
        cov.start()
        return cov
    except Exception:
        return None


def save(cov):
    if cov is None:
        return
    try:
        cov.stop()
        cov.save()
    except Exception:
        pass
