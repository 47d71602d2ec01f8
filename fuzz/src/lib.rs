//! Shared code of the fuzz targets: the pipeline they drive lives in the
//! testkit crate (`testkit/src/pipeline.rs`), which
//! `tests/fuzz_regressions.rs` replays saved inputs through.

pub use pytest_mcp_testkit::pipeline;
