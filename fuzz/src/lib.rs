//! Shared code of the fuzz targets; see `pipeline.rs`.

pub mod pipeline;
