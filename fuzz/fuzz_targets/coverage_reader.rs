#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = pytest_mcp_fuzz::coverage_pipeline::coverage(data);
});
