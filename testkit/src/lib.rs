//! Code shared by pytest-mcp's integration tests (`tests/`), its benches
//! (`benches/`) and its fuzz targets (`fuzz/`), so that none of them
//! compiles another's files:
//!
//! - [`inputs`]: generated inputs (pytest projects, a 100,000-case JUnit
//!   file), for the perf harness and for the tests that check large inputs;
//! - [`tokens`]: token-cost measurement (`tests/token_budget.rs`, the
//!   `token_cost` benches);
//! - [`pipeline`]: what the fuzz targets drive, replayed on saved inputs by
//!   `tests/fuzz_regressions.rs`;
//! - [`coverage_pipeline`]: the same for the coverage report readers and
//!   the change's coverage judge (the `coverage_reader` fuzz target);
//! - [`sharding`]: a simulated suite with known true costs and
//!   pytest-split's algorithms, to measure shard plans against (the perf
//!   harness's `plan` section, `tests/plan.rs`);
//! - [`real_suites`]: real libraries' own test suites with bugs injected
//!   (`tests/real_suites.rs`, the perf harness's `suites` section);
//! - [`repo`] and [`corpus_dir`]: where the repository and the shared JUnit
//!   corpus are.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Once;

pub mod coverage_pipeline;
pub mod inputs;
pub mod pipeline;
pub mod real_suites;
pub mod sharding;
pub mod tokens;

/// The repository's root (the folder above `testkit/`).
pub fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("testkit/ is inside the repository")
}

/// Where the shared JUnit corpus lives: `../shared/junit-corpus/`, beside
/// the repository (CI has it; a plain clone does not).
pub const CORPUS: &str = "../shared/junit-corpus";

/// The shared JUnit corpus, or `None` when it is not beside the repository.
/// Then the first call in this process prints one line saying the corpus
/// tests are skipped. It goes straight to stderr: `cargo test` captures
/// `println!`/`eprintln!` of a passing test, so a skip printed that way
/// would never be seen.
pub fn corpus_dir() -> Option<PathBuf> {
    let dir = repo().join(CORPUS);
    if dir.is_dir() {
        return Some(dir);
    }
    static SAID: Once = Once::new();
    SAID.call_once(|| {
        let _ = writeln!(
            std::io::stderr(),
            "corpus tests skipped: {CORPUS} not found"
        );
    });
    None
}
