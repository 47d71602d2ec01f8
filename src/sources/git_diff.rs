//! The lines an edit changed, from git's diff of the working tree
//! against a commit (`git diff --no-color --no-ext-diff -U0 REF --`).
//!
//! Only the new side matters: a changed line is one the working tree
//! holds now, so each hunk header's `+c,d` is all that is read, and `-U0`
//! keeps git from padding hunks with unchanged context. Paths are the
//! `+++ b/<path>` of each file (a rename's new name, git's C quoting
//! undone). Whatever this reader does not expect is skipped, never an
//! error: a diff is only ever read to tell the agent more, and a line it
//! cannot read must not cost the tests' answer.

use std::collections::BTreeMap;

/// The new side's changed lines of every file in a diff.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChangedLines {
    /// Path relative to the repository's top, with forward slashes (as
    /// git writes it) → its changed lines, 1-based, sorted, each once. A
    /// file with no line left (deleted, binary, its mode alone changed,
    /// only lines removed) has no entry.
    pub files: BTreeMap<String, Vec<u32>>,
}

impl ChangedLines {
    /// Counts every line of an untracked file, which `git diff` does not
    /// show but the edit made all the same. An empty file adds nothing.
    pub fn add_untracked(&mut self, path: &str, line_count: u32) {
        if line_count > 0 {
            self.files
                .insert(path.to_string(), (1..=line_count).collect());
        }
    }
}

/// The changed lines of `diff`, the output of `git diff --no-color
/// --no-ext-diff -U0 REF --`. Paths lose git's `b/` prefix: the caller
/// should pass `--src-prefix=a/ --dst-prefix=b/` so that a user's
/// `diff.noprefix` or `diff.mnemonicPrefix` cannot change it (a new-side
/// path without `b/` is kept whole).
pub fn changed_lines(diff: &str) -> ChangedLines {
    let mut parser = Parser::new(diff.len());
    for line in diff.lines() {
        parser.line(line);
    }
    parser.finish()
}

/// Where in a diff the reader is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// A file's header, before its first hunk: `index`, modes, renames,
    /// `Binary files ... differ`, `---` and the `+++` that names it.
    Header,
    /// A hunk's body, with the lines left on each side: counting them is
    /// what keeps an added line `++ x` (shown `+++ x`) from being read as
    /// a header.
    Body { old: u32, new: u32 },
    /// After a hunk: another hunk, or another file, may follow.
    Between,
    /// A combined diff (`diff --cc`, of a merge): its hunks have more than
    /// two sides, so it is passed over up to the next `diff --git`.
    Combined,
}

/// The reader's state over the lines of one diff.
struct Parser {
    state: State,
    /// The current file's new-side path; none before its `+++`, and for a
    /// deleted file.
    file: Option<String>,
    /// How many more lines hunk headers may add. A well-formed diff spends
    /// at least two bytes (`+` and the newline) on each added line, so its
    /// length in bytes is never reached; a forged header claiming four
    /// billion lines is, and the memory stays in proportion to the input.
    budget: u64,
    files: BTreeMap<String, Vec<u32>>,
}

impl Parser {
    fn new(diff_len: usize) -> Parser {
        Parser {
            state: State::Header,
            file: None,
            budget: u64::try_from(diff_len).unwrap_or(u64::MAX),
            files: BTreeMap::new(),
        }
    }

    /// Reads one line (without its line break).
    fn line(&mut self, line: &str) {
        if let State::Body { old, new } = self.state {
            if self.body_line(line, old, new) {
                return;
            }
        }
        if let Some(rest) = line.strip_prefix("diff ") {
            self.start_file(rest);
            return;
        }
        match self.state {
            State::Combined => {}
            State::Header => match line.strip_prefix("+++ ") {
                Some(name) => self.file = new_path(name),
                None => self.hunk(line),
            },
            State::Body { .. } | State::Between => {
                // A plain unified diff (no `diff --git`) starts a file here.
                if line.starts_with("--- ") {
                    self.state = State::Header;
                    self.file = None;
                } else {
                    self.hunk(line);
                }
            }
        }
    }

    /// A `diff ...` line: a new file, whose path its `+++` will tell.
    fn start_file(&mut self, rest: &str) {
        self.file = None;
        self.state = if rest.starts_with("--cc ") || rest.starts_with("--combined ") {
            State::Combined
        } else {
            State::Header
        };
    }

    /// Consumes `line` when it belongs to the hunk's body; false when the
    /// body ended before it (too few lines: a truncated or edited diff).
    fn body_line(&mut self, line: &str, old: u32, new: u32) -> bool {
        let left = match line.as_bytes().first() {
            Some(b'-') if old > 0 => (old - 1, new),
            Some(b'+') if new > 0 => (old, new - 1),
            // Context (none under -U0; an empty line is one whose
            // trailing space an editor took).
            Some(b' ') | None if old > 0 && new > 0 => (old - 1, new - 1),
            // `\ No newline at end of file` belongs to the line before.
            Some(b'\\') => (old, new),
            _ => {
                self.state = State::Between;
                return false;
            }
        };
        self.state = match left {
            (0, 0) => State::Between,
            (old, new) => State::Body { old, new },
        };
        true
    }

    /// A hunk header `@@ -a[,b] +c[,d] @@`: lines c..c+d-1 of the current
    /// file are changed. Any other line is skipped.
    fn hunk(&mut self, line: &str) {
        let Some(((_, old), (start, count))) = hunk_ranges(line) else {
            return;
        };
        self.add(start, count);
        self.state = match (old, count) {
            (0, 0) => State::Between,
            (old, new) => State::Body { old, new },
        };
    }

    /// Adds `count` lines from `start` to the current file, within the
    /// budget.
    fn add(&mut self, start: u32, count: u32) {
        let Some(file) = &self.file else {
            return;
        };
        let take = u64::from(count).min(self.budget);
        self.budget -= take;
        let Some(last) = (u64::from(start) + take).checked_sub(1) else {
            return;
        };
        let last = u32::try_from(last).unwrap_or(u32::MAX);
        // Line 0 is no line (a forged `+0,3`).
        let first = start.max(1);
        if take == 0 || last < first {
            return;
        }
        self.files
            .entry(file.clone())
            .or_default()
            .extend(first..=last);
    }

    /// The lines read, each file's sorted and once.
    fn finish(self) -> ChangedLines {
        let mut files = self.files;
        for lines in files.values_mut() {
            lines.sort_unstable();
            lines.dedup();
        }
        ChangedLines { files }
    }
}

/// A hunk header's old and new ranges, each as (start, count); a count
/// left out is 1. None when `line` is no two-sided hunk header.
fn hunk_ranges(line: &str) -> Option<((u32, u32), (u32, u32))> {
    let rest = line.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, rest) = rest.split_once(' ')?;
    if !rest.starts_with("@@") {
        return None;
    }
    Some((range(old)?, range(new)?))
}

/// `a` or `a,b` as (a, b), b being 1 when left out.
fn range(text: &str) -> Option<(u32, u32)> {
    match text.split_once(',') {
        Some((start, count)) => Some((number(start)?, number(count)?)),
        None => Some((number(text)?, 1)),
    }
}

/// Decimal digits alone (Rust's parser would also take a leading `+`).
fn number(text: &str) -> Option<u32> {
    if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok()
}

/// The path after `+++ `: unquoted, without git's `b/`; none for
/// `/dev/null` (a deleted file) or a name that cannot be read.
fn new_path(text: &str) -> Option<String> {
    let name = if text.starts_with('"') {
        unquote(text)?
    } else {
        // git ends a name holding a space with a tab (for GNU patch);
        // other diffs put a date after one.
        text.split('\t').next().unwrap_or_default().to_string()
    };
    if name.is_empty() || name == "/dev/null" {
        return None;
    }
    match name.strip_prefix("b/") {
        Some(path) if !path.is_empty() => Some(path.to_string()),
        Some(_) => None,
        None => Some(name),
    }
}

/// A name git quoted C-style (it does so for control characters, `"`,
/// `\` and, with the default `core.quotePath`, every byte above ASCII as
/// an octal escape): the bytes between the quotes, escapes undone, read
/// as UTF-8. None when the quote is not closed or an escape is unknown.
fn unquote(text: &str) -> Option<String> {
    let mut bytes = text.strip_prefix('"')?.bytes();
    let mut out = Vec::new();
    loop {
        match bytes.next()? {
            b'"' => return Some(String::from_utf8_lossy(&out).into_owned()),
            b'\\' => out.push(escaped(&mut bytes)?),
            b => out.push(b),
        }
    }
}

/// The byte an escape after `\` stands for.
fn escaped(bytes: &mut impl Iterator<Item = u8>) -> Option<u8> {
    let b = bytes.next()?;
    Some(match b {
        b'a' => 0x07,
        b'b' => 0x08,
        b't' => b'\t',
        b'n' => b'\n',
        b'v' => 0x0b,
        b'f' => 0x0c,
        b'r' => b'\r',
        b'"' | b'\\' => b,
        // Three octal digits, the first at most 3: one byte.
        b'0'..=b'3' => {
            let middle = octal(bytes.next()?)?;
            let low = octal(bytes.next()?)?;
            (b - b'0') * 64 + middle * 8 + low
        }
        _ => return None,
    })
}

fn octal(b: u8) -> Option<u8> {
    matches!(b, b'0'..=b'7').then(|| b - b'0')
}

#[cfg(test)]
mod tests;
