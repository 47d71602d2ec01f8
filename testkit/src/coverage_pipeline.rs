//! What the `coverage_reader` fuzz target drives, shared with the
//! regression tests (`tests/fuzz_regressions.rs`), as [`pipeline`] is for
//! the test-report readers.
//!
//! The bytes are read as coverage.py's reports (`report --coverage`): the
//! kind `coverage_data::sniff` says, and both readers called directly
//! (`cobertura`, `json`), neither of which may panic on anything. The same
//! bytes, as lossy UTF-8, are then a Python source file, [`PATH`] under
//! [`ROOT`], every line of it changed (the first [`MAX_CHANGED`]), judged
//! against what the sniffed reader read (nothing when it read nothing),
//! and once more against those lines named as the file itself, so that a
//! report's line numbers meet a source they were not made for. The result
//! is compared with its own states (before = now) and with an empty file
//! before it.
//!
//! Besides "no panic", each step checks what the code promises, and panics
//! when a promise is broken:
//!
//! - reports: every file's lines run are among its statements; adding a
//!   report to itself changes nothing, adding two keeps every line of both;
//! - `Source::read`: a line's statement starts at or before it, the
//!   logical lines are in order and apart, every line of one has it as its
//!   statement, a `def` or `class` lies within the scope `scope_of` gives
//!   it (so the scope's first line ≤ its last; the first 256 defs);
//! - the judgment: covered ≤ changed lines (the totals the files' sums),
//!   each file's covered lines among its changed ones, every changed line a
//!   statement's of the file and one of the lines asked about; every gap
//!   has start ≤ end within the file, starts and ends on an uncovered line,
//!   holds no covered one, gaps in order and apart, every uncovered line in
//!   one; a gap's source is the file's text from its start, 12 lines at
//!   most, its function its start's scope (the first 256 gaps); the file's
//!   state is what `state_in` gives;
//! - `compare` with the states just measured: every gap was
//!   `NotRunBefore` (the same code, measured, not run either), nothing is
//!   left behind; with an empty file before it: every gap `New`, nothing
//!   left behind; with states of other files: nothing marked.
//!
//! [`pipeline`]: crate::pipeline

use std::collections::{BTreeMap, BTreeSet};

use pytest_mcp::model::coverage::{ChangeCoverage, FileState, Was, compare};
use pytest_mcp::sources::coverage_data::{self, DataKind, Measured};
use pytest_mcp::sources::coverage_judge::{self, Change};
use pytest_mcp::sources::git_diff::ChangedLines;
use pytest_mcp::sources::python_source::{Source, defines};

/// The project root the source is judged under.
pub const ROOT: &str = "/work/p";
/// The root-relative path the bytes are judged as.
pub const PATH: &str = "pkg/mod.py";
/// At most this many lines (the first ones) are changed.
pub const MAX_CHANGED: u32 = 4096;
/// The defs and gaps whose scope is checked, at most (the first ones).
const CHECKED_DEFS: usize = 256;

/// What the pipeline read and judged, for tests that look closer.
#[derive(Debug)]
pub struct Read {
    pub kind: Result<DataKind, String>,
    pub cobertura: Result<Measured, String>,
    pub json: Result<Measured, String>,
    /// What the sniffed kind's reader read (empty when none read it).
    pub measured: Measured,
    /// The bytes as `PATH`, judged by `measured`.
    pub judged: ChangeCoverage,
    /// The same, judged by every file of `measured` named as `PATH`.
    pub aliased: ChangeCoverage,
}

/// Bytes as a coverage report and as a Python source file; see the module
/// documentation for what is checked.
pub fn coverage(data: &[u8]) -> Read {
    let kind = coverage_data::sniff(data);
    let cobertura = coverage_data::cobertura(data);
    let json = coverage_data::json(data);
    for m in [&cobertura, &json].into_iter().flatten() {
        measured_holds(m);
    }
    if let (Ok(a), Ok(b)) = (&cobertura, &json) {
        added_holds(a, b);
    }
    let measured = match kind {
        Ok(DataKind::Cobertura) => cobertura.clone().ok(),
        Ok(DataKind::Json) => json.clone().ok(),
        _ => None,
    }
    .unwrap_or_default();

    let text = String::from_utf8_lossy(data);
    let source = source_holds(&text);
    let judged = judge_holds(&text, &source, &measured);
    // A report's lines met with a source they were not written for: every
    // file it names, joined, as this file in another checkout (matched by
    // its ending; the report's own names are kept, and win when they name
    // this file exactly).
    let mut named = measured.clone();
    for lines in measured.files.values() {
        let mut one = Measured::default();
        one.files
            .insert(format!("/elsewhere/{PATH}"), lines.clone());
        named.add(one);
    }
    added_holds(&measured, &named);
    let aliased = match named.files.is_empty() {
        true => judged.clone(),
        false => judge_holds(&text, &source, &named),
    };
    Read {
        kind,
        cobertura,
        json,
        measured,
        judged,
        aliased,
    }
}

/// A report's files: every line run is a statement.
fn measured_holds(m: &Measured) {
    for (path, lines) in &m.files {
        assert!(
            lines.executed.is_subset(&lines.statements),
            "{path:?}: lines run that are no statement: {:?}",
            lines
                .executed
                .difference(&lines.statements)
                .collect::<Vec<_>>()
        );
    }
}

/// `Measured::add`: with itself nothing changes; two reports keep every
/// file and line of both.
fn added_holds(a: &Measured, b: &Measured) {
    let mut twice = a.clone();
    twice.add(a.clone());
    assert_eq!(&twice, a, "a report added to itself changed");
    let mut both = a.clone();
    both.add(b.clone());
    for part in [a, b] {
        for (path, lines) in &part.files {
            let joined = both.files.get(path).expect("every file of both is kept");
            assert!(lines.statements.is_subset(&joined.statements), "{path:?}");
            assert!(lines.executed.is_subset(&joined.executed), "{path:?}");
        }
    }
    assert!(both.files.len() <= a.files.len() + b.files.len());
    measured_holds(&both);
}

/// `Source::read` of the text, checked.
fn source_holds(text: &str) -> Source {
    let (source, logical) = Source::read(text);
    let len = source.len();
    assert_eq!(
        len as usize,
        text.lines().count(),
        "a line for each of the text's lines"
    );
    for n in 0..=len.saturating_add(1) {
        assert!(
            source.first_line(n) <= n,
            "line {n}'s statement starts after it, at {}",
            source.first_line(n)
        );
        if n == 0 || n > len {
            assert!(!source.is_code(n), "line {n} is outside the file");
        }
    }
    let (mut after, mut defs) = (0, 0);
    for l in &logical {
        assert!(
            after < l.first && l.first <= l.last && l.last <= len,
            "logical line {}-{} after line {after} of {len}",
            l.first,
            l.last
        );
        after = l.last;
        for n in l.first..=l.last {
            assert_eq!(source.first_line(n), l.first, "line {n} of {l:?}");
        }
        assert!(
            (l.first..=l.last).any(|n| source.is_code(n)),
            "a logical line without code: {l:?}"
        );
        // `scope_of` looks through every scope: the first defs only, or a
        // file of thousands of them costs the fuzzer seconds here alone.
        if let Some(name) = defines(&l.head).filter(|_| defs < CHECKED_DEFS) {
            defs += 1;
            let scope = source
                .scope_of(l.first)
                .unwrap_or_else(|| panic!("no scope for the def of {l:?}"));
            assert!(
                scope.first <= l.first && l.last <= scope.last,
                "{scope:?} does not hold its def {l:?}"
            );
            assert!(
                scope.name == name || scope.name.ends_with(&format!(".{name}")),
                "{scope:?} for the def of {name:?}"
            );
        }
    }
    source
}

/// The text as [`PATH`], every line changed, judged by `measured`, then
/// compared with itself, with an empty file and with another file.
fn judge_holds(text: &str, source: &Source, measured: &Measured) -> ChangeCoverage {
    let asked: Vec<u32> = (1..=source.len().min(MAX_CHANGED)).collect();
    let mut changed = ChangedLines::default();
    if !asked.is_empty() {
        changed.files.insert(PATH.to_string(), asked.clone());
    }
    let texts = BTreeMap::from([(PATH.to_string(), text.to_string())]);
    let change = Change {
        base: "HEAD",
        changed: &changed,
        texts: &texts,
        root: ROOT,
    };
    let judged = coverage_judge::judge(&change, measured);
    judgment_holds(&judged, text, source, &asked);
    let state = coverage_judge::state_in(measured, PATH, text, ROOT);
    if let Some(now) = judged.measured.first() {
        assert_eq!(now, &state, "state_in differs from the judged state");
    }

    let mut itself = judged.clone();
    compare(&mut itself, &judged.measured, "itself");
    for gap in itself.files.iter().flat_map(|f| &f.gaps) {
        assert_eq!(
            gap.was,
            Some(Was::NotRunBefore),
            "compared with itself, {gap:?} was not 'not run before either'"
        );
    }
    assert!(
        itself.left_behind.is_empty(),
        "compared with itself, lines left behind: {:?}",
        itself.left_behind
    );
    let expected = (!judged.files.is_empty()).then(|| "itself".to_string());
    assert_eq!(itself.compared_with, expected);
    assert_eq!(
        (&itself.files.len(), &itself.measured),
        (&judged.files.len(), &judged.measured)
    );

    let mut from_nothing = judged.clone();
    let empty = FileState {
        path: PATH.to_string(),
        ..FileState::default()
    };
    compare(&mut from_nothing, &[empty], "nothing");
    for gap in from_nothing.files.iter().flat_map(|f| &f.gaps) {
        assert_eq!(gap.was, Some(Was::New), "all of it added, {gap:?}");
    }
    assert!(from_nothing.left_behind.is_empty());

    let mut elsewhere = judged.clone();
    let other: Vec<FileState> = judged
        .measured
        .iter()
        .map(|s| FileState {
            path: format!("other/{}", s.path),
            ..s.clone()
        })
        .collect();
    compare(&mut elsewhere, &other, "another file");
    assert_eq!(elsewhere, judged, "states of other files marked something");
    judged
}

/// The judgment's promises (see the module documentation).
fn judgment_holds(judged: &ChangeCoverage, text: &str, source: &Source, asked: &[u32]) {
    assert!(
        judged.covered_lines <= judged.changed_lines,
        "{} covered of {} changed",
        judged.covered_lines,
        judged.changed_lines
    );
    let changed: usize = judged.files.iter().map(|f| f.changed.len()).sum();
    let covered: usize = judged.files.iter().map(|f| f.covered.len()).sum();
    assert_eq!(
        (judged.changed_lines, judged.covered_lines),
        (changed, covered)
    );
    assert_eq!(judged.files.len(), judged.measured.len());
    assert!(judged.left_behind.is_empty() && judged.compared_with.is_none());
    let lines: Vec<&str> = text.lines().collect();
    let len = source.len();
    for (file, state) in judged.files.iter().zip(&judged.measured) {
        let path = &file.path;
        assert_eq!((path.as_str(), state.path.as_str()), (PATH, PATH));
        assert!(!file.changed.is_empty(), "{path}: an entry with no line");
        assert!(
            file.changed.windows(2).all(|w| w[0] < w[1]),
            "{path}: changed lines not sorted and unique: {:?}",
            file.changed
        );
        let counted: BTreeSet<u32> = state.counted.iter().copied().collect();
        let ran: BTreeSet<u32> = state.ran.iter().copied().collect();
        assert!(state.counted.windows(2).all(|w| w[0] < w[1]), "{path}");
        assert!(
            ran.is_subset(&counted),
            "{path}: ran lines that do not count"
        );
        assert!(state.counted.iter().all(|&n| 1 <= n && n <= len), "{path}");
        assert_eq!(state.text, lines, "{path}: the state's text");
        for &n in &file.changed {
            assert!(
                asked.binary_search(&n).is_ok(),
                "{path}: {n} was not changed"
            );
            assert!(
                counted.contains(&n) && source.is_code(n),
                "{path}: {n} does not count"
            );
        }
        let changed: BTreeSet<u32> = file.changed.iter().copied().collect();
        for &n in &file.covered {
            assert!(
                changed.contains(&n),
                "{path}: covered {n} is not a changed line"
            );
            assert!(ran.contains(&n), "{path}: covered {n} did not run");
        }
        // Linear checks: a file of thousands of lines must not cost the
        // fuzzer more than the code under test.
        let covered: BTreeSet<u32> = file.covered.iter().copied().collect();
        let uncovered: Vec<u32> = changed.difference(&covered).copied().collect();
        let mut end = 0;
        for (i, gap) in file.gaps.iter().enumerate() {
            assert!(
                end < gap.start && gap.start <= gap.end && gap.end <= len,
                "{path}: gap {}-{} after line {end}, in {len} lines",
                gap.start,
                gap.end
            );
            end = gap.end;
            assert!(
                uncovered.binary_search(&gap.start).is_ok()
                    && uncovered.binary_search(&gap.end).is_ok(),
                "{path}: gap {}-{} starts or ends on a line that is not uncovered",
                gap.start,
                gap.end
            );
            assert!(
                covered.range(gap.start..=gap.end).next().is_none(),
                "{path}: gap {}-{} holds a covered line",
                gap.start,
                gap.end
            );
            let from = gap.start as usize - 1;
            let to = (gap.end as usize).min(from + 12);
            assert_eq!(gap.source, lines[from..to], "{path}: gap {gap:?}'s source");
            assert!(gap.was.is_none(), "{path}: compared with nothing");
            if i < CHECKED_DEFS {
                let scope = source.scope_of(gap.start).map(|s| s.name.as_str());
                assert_eq!(gap.function.as_deref(), scope, "{path}: {gap:?}");
            }
        }
        for n in uncovered {
            let at = file.gaps.partition_point(|g| g.end < n);
            assert!(
                file.gaps.get(at).is_some_and(|g| g.start <= n),
                "{path}: uncovered line {n} in no gap: {:?}",
                file.gaps
            );
        }
    }
}
