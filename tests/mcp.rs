//! `pytest-mcp serve` driven through a real MCP client: the Python tests in
//! `tests/mcp/` (the MCP Python SDK over stdio against the binary cargo just
//! built), on two pytest-xdist workers (every test has its own project copy
//! and its own server). The load tests (`tests/mcp/test_load.py`) are left
//! to `tests/mcp_load.rs`, so that everyday `cargo test` stays fast, and the
//! plugin matrix (`tests/mcp/test_plugins.py`) to `tests/plugins.rs`, its
//! warm-against-cold check to `tests/warm_plugins.rs`.
//!
//! Interpreter: `PYTEST_MCP_TEST_PYTHON`, else `.venv/bin/python`; see
//! `tests/common/mcp_suite.rs` (`mod common;`).

mod common;
use common::mcp_suite;

#[test]
fn the_server_works_with_the_mcp_python_sdk() {
    mcp_suite::run_python_suite(
        "the MCP tests (tests/mcp)",
        "mcp",
        &[
            "tests/mcp",
            "--ignore=tests/mcp/test_load.py",
            "--ignore=tests/mcp/test_plugins.py",
            "--ignore=tests/mcp/test_warm_plugins.py",
            "-n",
            "2",
        ],
    );
}
