//! go-ctrf-json-reporter's messages: a failed test's whole `go test -v`
//! output, framed by `=== RUN` and `--- FAIL:` lines and indented by four
//! spaces. The failure is what is between them (`cart_test.go:21: total
//! = 10.19, want 10.20`), and its `file_test.go:N:` gives the line the
//! entry has no key for (read as any trace's, `model::crash::line_in`).

/// Whether `results.tool.name` is go-ctrf-json-reporter's (`gotest`) or
/// another Go tool's: only its messages are `go test` output.
pub(super) fn is_go(tool: &str) -> bool {
    let tool = tool.trim().to_ascii_lowercase();
    tool == "go" || tool == "gotest" || tool.starts_with("go test")
}

/// The lines `go test -v` frames a test's output with: never the failure.
const FRAMING: [&str; 4] = ["=== RUN", "=== PAUSE", "=== CONT", "=== NAME"];

/// The lines that end a test's output: the failure only when nothing else
/// is left (a parent test that failed because a subtest did).
const ENDINGS: [&str; 3] = ["--- FAIL:", "--- PASS:", "--- SKIP:"];

/// `message` without `go test`'s framing and indent, when it has that
/// framing (its first line is `=== RUN ...`); none when it has not.
pub(super) fn output(message: &str) -> Option<String> {
    let first = message.lines().find(|l| !l.trim().is_empty())?;
    if !first.starts_with("=== RUN") {
        return None;
    }
    let is = |line: &str, words: &[&str]| words.iter().any(|w| line.trim_start().starts_with(w));
    let body: Vec<&str> = message
        .lines()
        .filter(|l| !l.trim().is_empty())
        .filter(|l| !is(l, &FRAMING) && !is(l, &ENDINGS))
        .collect();
    let kept: Vec<&str> = if body.is_empty() {
        message.lines().filter(|l| is(l, &ENDINGS)).collect()
    } else {
        body
    };
    let indent = kept
        .iter()
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    let text: Vec<&str> = kept.iter().map(|l| l.get(indent..).unwrap_or(l)).collect();
    Some(text.join("\n"))
}

#[cfg(test)]
mod tests;
