//! pytest-mcp: test results an AI agent or a reviewer can act on at the
//! lowest token cost.
//!
//! The data flows one way (SPEC.md):
//!
//! ```text
//! result files -> sources (junit, json_report) -> merge -> model::Run
//!              -> render (json | markdown) -> cli (stdout / file + exit code)
//! ```
//!
//! Everything before `cli` is a pure function of its input, tested with the
//! golden files under `golden/`.

pub mod baseline;
pub mod cli;
pub mod command;
pub mod execute;
pub mod merge;
pub mod model;
pub mod params;
pub mod process;
pub mod pytest_text;
pub mod render;
pub mod report;
pub mod request;
pub mod server;
pub mod sources;
pub mod text;
