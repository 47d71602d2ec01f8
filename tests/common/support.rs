//! Helpers several test files share (each includes this file with
//! `#[path = "common/support.rs"] mod support;` and uses what it needs).
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;

/// Drains a child's output stream on a thread, so that neither pipe can
/// fill up and stall the child while the other is read.
pub fn reader<R: Read + Send + 'static>(mut stream: R) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stream.read_to_end(&mut buf);
        buf
    })
}

/// The first `max` characters of `text`, for assertion messages.
pub fn head(text: &str, max: usize) -> &str {
    match text.char_indices().nth(max) {
        Some((cut, _)) => &text[..cut],
        None => text,
    }
}

/// `../shared/junit-corpus/`, beside the repository.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/junit-corpus")
}

/// Every XML file of the corpus, sorted; fails unless the whole corpus is
/// there.
pub fn corpus_files() -> Vec<PathBuf> {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    files.sort();
    assert!(
        files.len() > 100,
        "expected the whole corpus, found {} files",
        files.len()
    );
    files
}
