//! The MCP server under load (`tests/mcp/test_load.py`: fifty calls at
//! once, a thousand calls with memory and descriptors flat), through the
//! MCP Python SDK as in `tests/mcp.rs`.
//!
//! These take about as long as every other test together, so they are a
//! test binary of their own whose one test is `#[ignore]`d: a plain
//! `cargo test` (or `cargo test --all-targets`) builds and lints this file
//! and lists the test as ignored, without running it. CI runs it:
//! `scripts/test.sh` runs `cargo test --all-targets` and then
//! `cargo test --test mcp_load -- --ignored`. By hand, the same command.
//! (A `[[test]]` with `test = false` was the alternative: it would also
//! keep the file out of `cargo clippy --all-targets`.)

mod common;
use common::mcp_suite;

#[test]
#[ignore = "load tests, slow: scripts/test.sh runs them (cargo test --test mcp_load -- --ignored)"]
fn the_server_holds_up_under_load() {
    mcp_suite::run_python_suite(
        "the MCP load tests (tests/mcp/test_load.py)",
        "mcp_load",
        &["tests/mcp/test_load.py"],
    );
}
