//! Shared code of the fuzz targets: the pipelines they drive live in the
//! testkit crate (`testkit/src/pipeline.rs` and, for `coverage_reader`,
//! `testkit/src/coverage_pipeline.rs`), which `tests/fuzz_regressions.rs`
//! replays saved inputs through.

pub use pytest_mcp_testkit::{coverage_pipeline, pipeline};
