//! pytest-mcp: test results an AI agent or a reviewer can act on at the
//! lowest token cost.
//!
//! The data flows one way (ARCHITECTURE.md draws it, with the file of each
//! stage):
//!
//! ```text
//! request (cli | server) -> params -> command argv -> process
//!         -> sources -> model (merge) -> render -> transport (cli | server)
//! ```
//!
//! `report` starts at the sources with files the user gives. Readers and
//! renderers are pure functions, pinned by the golden files under `golden/`.

pub mod frontend;
pub mod model;
pub mod pytest_text;
pub mod render;
pub mod request;
pub mod runner;
pub mod sources;
pub mod text;
