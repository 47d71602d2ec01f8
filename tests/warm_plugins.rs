//! Warm runs tell the plugin matrix as cold runs do (issue 50,
//! docs/warm.md): `tests/mcp/test_warm_plugins.py` through the MCP Python
//! SDK, for every project of `tests/plugins/`, a warm run's answer against
//! a cold run's of the same copy. A binary of its own, so that the whole
//! suite runs it beside the other long jobs (scripts/test_jobs.py).
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`; each
//! project is served with its `.venv-plugins/<venv>` interpreter, and one
//! whose virtualenv is missing is skipped, saying which.

mod common;
use common::mcp_suite;

#[test]
fn warm_runs_answer_the_plugin_matrix_as_cold_runs() {
    mcp_suite::run_python_suite(
        "warm against cold on the plugin matrix (tests/mcp/test_warm_plugins.py)",
        "mcp_warm_plugins",
        &["tests/mcp/test_warm_plugins.py", "-n", "2", "-rs"],
    );
}
