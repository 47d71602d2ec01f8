//! Helpers the test binaries share, the way Cargo intends: a module
//! folder (`tests/common/mod.rs` is not a test target of its own) that each
//! test file declares with `mod common;`, using what it needs. Code the
//! benches or the fuzz targets need as well is in the testkit crate
//! (`testkit/`), never compiled from here.
#![allow(dead_code)]

pub mod golden;
pub mod headline;
pub mod mcp_suite;
pub mod support;
