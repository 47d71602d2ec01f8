//! pytest's closing line, read for its counts and seconds: pytest's own
//! (`=== 2 failed, 6 passed in 0.12s ===`) and pytest-sugar's
//! (`Results (0.06s):` and a count per line).

use std::collections::BTreeMap;

/// pytest's closing line: its counts by word, made singular ("passed",
/// "failed", "error", "skipped", "xfailed", "xpassed", "rerun", "warning",
/// "deselected"), and its seconds.
pub struct Closing {
    pub line: String,
    pub counts: BTreeMap<String, u64>,
    pub seconds: f64,
}

impl Closing {
    pub fn get(&self, word: &str) -> u64 {
        self.counts.get(word).copied().unwrap_or(0)
    }

    /// Every test the line counts, whatever its outcome.
    pub fn total(&self) -> u64 {
        ["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
            .iter()
            .map(|w| self.get(w))
            .sum()
    }
}

fn singular(word: &str) -> String {
    match word {
        "errors" => "error",
        "warnings" => "warning",
        w => w,
    }
    .to_string()
}

/// `=== 2 failed, 6 passed, 1 warning in 0.12s ===` (or `in 61.20s
/// (0:01:01)`, or `no tests ran in 0.01s`).
fn pytest_closing(line: &str) -> Option<Closing> {
    let inner = line.trim().strip_prefix("= ").or_else(|| {
        let rest = line.trim().trim_start_matches('=');
        (rest.len() < line.trim().len()).then_some(rest)
    })?;
    let inner = inner.trim_end_matches('=').trim();
    let (words, time) = inner.rsplit_once(" in ")?;
    let seconds = time
        .split_whitespace()
        .next()?
        .strip_suffix('s')?
        .parse()
        .ok()?;
    let mut counts = BTreeMap::new();
    if words != "no tests ran" {
        for part in words.split(", ") {
            let (n, word) = part.split_once(' ')?;
            counts.insert(singular(word), n.parse().ok()?);
        }
    }
    Some(Closing {
        line: line.trim().to_string(),
        counts,
        seconds,
    })
}

/// pytest-sugar's end: `Results (0.06s):`, then a count per line
/// (`       2 passed`), the failed tests' places between them.
fn sugar_closing(output: &str) -> Option<Closing> {
    let mut lines = output.lines().skip_while(|l| !l.starts_with("Results ("));
    let first = lines.next()?.trim();
    let seconds = first
        .strip_prefix("Results (")?
        .strip_suffix("s):")?
        .parse()
        .ok()?;
    let (mut counts, mut shown) = (BTreeMap::new(), vec![first.to_string()]);
    for line in lines.map(str::trim).filter(|l| !l.starts_with("- ")) {
        let Some((n, word)) = line.split_once(' ') else {
            break;
        };
        let Ok(n) = n.parse() else { break };
        counts.insert(singular(word), n);
        shown.push(line.to_string());
    }
    Some(Closing {
        line: shown.join(" "),
        counts,
        seconds,
    })
}

/// The closing line of pytest's output, pytest's or pytest-sugar's.
pub fn closing(output: &str) -> Option<Closing> {
    let last = output.lines().rev().find(|l| !l.trim().is_empty())?;
    pytest_closing(last).or_else(|| sugar_closing(output))
}

/// The last line of `output` that reads as pytest's closing line, wherever
/// it is (pytest-mcp's `text_output` has pytest's standard error after it).
pub fn last_closing(output: &str) -> Option<Closing> {
    output.lines().rev().find_map(pytest_closing)
}

#[test]
fn closing_lines_are_read() {
    let c = pytest_closing("==== 1 failed, 2 passed, 3 rerun, 1 warning in 61.20s (0:01:01) ====")
        .expect("pytest's line");
    assert_eq!(
        (c.get("failed"), c.get("passed"), c.get("rerun")),
        (1, 2, 3)
    );
    assert_eq!((c.get("warning"), c.total(), c.seconds), (1, 3, 61.2));
    let c = pytest_closing("= 2 errors in 0.05s =").expect("short line");
    assert_eq!((c.get("error"), c.seconds), (2, 0.05));
    assert!(pytest_closing("tests/test_a.py .F  [100%]").is_none());
    let sugar = "x\n\nResults (0.06s):\n       2 passed\n       1 failed\n         - tests/t.py:3 \
                 test_a\n       1 skipped\n";
    let c = closing(sugar).expect("sugar's lines");
    assert_eq!(
        (c.get("passed"), c.get("failed"), c.get("skipped")),
        (2, 1, 1)
    );
    assert_eq!(c.line, "Results (0.06s): 2 passed 1 failed 1 skipped");
}
