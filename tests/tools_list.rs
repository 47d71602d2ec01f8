//! What `tools/list` tells an agent, pinned: both tools' names,
//! descriptions and input schemas as derived from their request types
//! (`src/request.rs`), in the bytes the server sends. An agent pays for them
//! on every turn, so a change to a doc comment or an attribute of a request
//! field shows here, with its cost.
//!
//! To accept a reviewed change: `UPDATE_GOLDEN=1 cargo test --test tools_list`.

use std::path::PathBuf;

/// o200k tokens of the whole list: 875 when the schemas were first derived
/// from the request types (the same bytes as the hand-written schemas they
/// replaced), 898 before `max_tokens` and `workers`; issue 16 allowed up to
/// 1,500 with its new fields. 1,481 before `retries` (issue 32), which
/// costs 63 with its description: 1,544; 1,549 later. Issue 41 asked for
/// at most 1,400 without losing a parameter: each field says less, the
/// answers' shapes moved to the server's instructions (sent once, not
/// every turn): 1,283 with `exit_reason` and `not_run` (issue 39).
const MAX_TOKENS: usize = 1_400;

fn wire() -> String {
    serde_json::to_string(&pytest_mcp::frontend::server::tools()).expect("tools serialize")
}

#[test]
fn tools_list_is_pinned() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("golden/mcp/tools_list.json");
    let value: serde_json::Value = serde_json::from_str(&wire()).expect("JSON");
    let actual = serde_json::to_string_pretty(&value).expect("pretty") + "\n";
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, &actual).expect("write");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected != actual {
        let diff = similar::TextDiff::from_lines(&expected, &actual);
        panic!(
            "{} differs (review, then UPDATE_GOLDEN=1 cargo test --test tools_list):\n{}",
            path.display(),
            diff.unified_diff().header("expected", "actual")
        );
    }
}

#[test]
fn tools_list_stays_small() {
    let bpe = tiktoken_rs::o200k_base().expect("o200k_base loads");
    let tokens = bpe.encode_with_special_tokens(&wire()).len();
    // Straight to stderr, so that a plain `cargo test` shows the figure.
    use std::io::Write as _;
    let _ = writeln!(
        std::io::stderr(),
        "tools/list: {tokens} o200k tokens (bound {MAX_TOKENS})"
    );
    assert!(
        (500..=MAX_TOKENS).contains(&tokens),
        "tools/list is {tokens} o200k tokens (budget {MAX_TOKENS})"
    );
}
