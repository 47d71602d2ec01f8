//! pytest-mcp: test results an AI agent or a reviewer can act on at the
//! lowest token cost.
//!
//! The data flows one way (ARCHITECTURE.md draws it, with the file of each
//! stage):
//!
//! ```text
//! request (cli | server) -> params -> command argv -> process
//!         -> sources -> model (merge) -> render -> respond -> transport (cli | server)
//! ```
//!
//! The history of runs (`history`, docs/flaky.md) sits beside the model:
//! after a run is read, it is recorded and judged against the runs before.
//!
//! `report` starts at the sources with files the user gives. Readers and
//! renderers are pure functions, pinned by the golden files under `golden/`.
//! A module uses only the stages before it: `request` (what a request says:
//! its fields, its [`OutputFormat`](request::OutputFormat), a refused parameter) and the
//! `model` (runs, execution errors, discoveries) use no other stage, and
//! renderers see only the model and the text helpers (`tests/architecture.rs`
//! checks it). `frontend::respond` is the one place that turns a result or an
//! error into the requested format, for the command line and the server.

pub mod budget;
pub mod frontend;
pub mod history;
pub mod model;
pub mod plan;
pub mod pytest_text;
pub mod render;
pub mod request;
pub mod runner;
pub mod sources;
pub mod text;
