//! Failures that share a root cause: same outcome kind, exception type,
//! crash location and message once values are normalized
//! ([`message_shape`]). Both renderers read them: Markdown shows one
//! representative per group, JSON lists the groups.

use foldhash::{HashMap, HashMapExt};
use std::collections::hash_map::Entry;

use super::crash::{self, is_framework_frame};
use super::{Outcome, Phase, Run, TestResult, Unlisted};
use crate::pytest_text;
use crate::text::first_line;

/// Failing or erroring tests that share a [`Shape`], as indices into
/// [`Run::tests`] in order of appearance: the first is the representative.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailureGroup<'t> {
    pub tests: Vec<usize>,
    /// Where the first test of the group as it was found crashed (that
    /// test's index and its [`Crash`]): what a group shows, found while
    /// grouping, as a shape is not cheap to find twice. After
    /// [`new_first`], `tests` may start with another test.
    pub crash: (usize, Crash<'t>),
}

/// Where a failure crashed and with which exception, as its [`Shape`]
/// says; nothing for a failure with no known place.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Crash<'t> {
    pub place: Option<(&'t str, Option<u32>)>,
    pub exception: Option<&'t str>,
}

impl<'t> Crash<'t> {
    /// What `shape` says of the crash.
    fn of(shape: Option<&Shape<'t>>) -> Crash<'t> {
        shape.map_or_else(Crash::default, |s| Crash {
            place: Some(s.place),
            exception: s.exception,
        })
    }
}

/// Where `t` crashed, as its [`Shape`] says.
pub fn crash(t: &TestResult) -> Crash<'_> {
    Crash::of(shape(t).as_ref())
}

/// What makes two failures the same, borrowed from the first of them.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Shape<'t> {
    /// `Failed` (any phase), or `Error` and its phase.
    pub kind: (Outcome, Option<Phase>),
    /// The exception's name, when the message or traceback says it.
    pub exception: Option<&'t str>,
    /// The crash location: a path and line, or a stack frame's text.
    pub place: (&'t str, Option<u32>),
    /// The message with its values normalized ([`message_shape`]).
    pub message: String,
    /// Whether earlier attempts failed too (reruns): a section says so.
    pub rerun: bool,
    /// The diff the failure shows (in its message, its `E` lines or its
    /// captured output: an approval test's), as a hash; 0 for none. Two
    /// failures with different diffs failed differently, whatever their
    /// messages share.
    pub diff: u64,
}

/// The run's failures and errors in groups, largest first, ties in order
/// of appearance. A failure with no known place is a group of its own (a
/// bare "Failed" from two Go tests says nothing about a shared cause), and
/// so is a test with failed subtests (each shows its own).
pub fn failure_groups(run: &Run) -> Vec<FailureGroup<'_>> {
    let mut groups: Vec<FailureGroup<'_>> = Vec::new();
    let mut index: HashMap<(Shape<'_>, Option<&str>), usize> = HashMap::new();
    for (i, t) in run.tests.iter().enumerate() {
        if !t.is_problem() {
            continue;
        }
        let shape = shape(t);
        let alone = FailureGroup {
            tests: vec![i],
            crash: (i, Crash::of(shape.as_ref())),
        };
        // A test with failed subtests is shown with them: never as one
        // more id of another test's group.
        let shape = shape.filter(|_| t.subtests().is_none());
        let Some(shape) = shape else {
            groups.push(alone);
            continue;
        };
        match index.entry(one_shape(t, shape)) {
            Entry::Occupied(e) => groups[*e.get()].tests.push(i),
            Entry::Vacant(e) => {
                e.insert(groups.len());
                groups.push(alone);
            }
        }
    }
    // Stable: ties keep their order of appearance.
    groups.sort_by_key(|g| std::cmp::Reverse(g.tests.len()));
    if let Some(changes) = &run.changes {
        new_first(run, &changes.new_set(), &mut groups);
    }
    groups
}

/// The key a failure is grouped by: its [`Shape`], except that failures
/// whose test fails on its own assertion (the crash in the test's file)
/// with the same message shape and calling the same code there
/// (`assert available("kiwi") == 0`, `assert available("leek") == 0`) are
/// one failure at any line of that file: the others are named with
/// their lines under the first.
fn one_shape<'t>(t: &'t TestResult, mut shape: Shape<'t>) -> (Shape<'t>, Option<&'t str>) {
    let in_test_file = t
        .location
        .as_ref()
        .is_some_and(|l| pytest_text::paths_match(shape.place.0, &l.file));
    if !in_test_file || shape.place.1.is_none() {
        return (shape, None);
    }
    let Some(callee) = t.traceback().and_then(failing_source).and_then(callee) else {
        return (shape, None);
    };
    shape.place.1 = None;
    (shape, Some(callee))
}

/// The failing source line of a pytest traceback: its last `>` line.
fn failing_source(tb: &str) -> Option<&str> {
    tb.lines()
        .rev()
        .find_map(|l| l.strip_prefix('>'))
        .map(str::trim)
}

/// Builtins a test calls around the code it tests (`len(...)`,
/// `sorted(...)`): the code under test is the next call.
const AROUND: &[&str] = &[
    "len",
    "list",
    "sorted",
    "set",
    "dict",
    "tuple",
    "str",
    "int",
    "float",
    "repr",
    "sum",
    "any",
    "all",
    "isinstance",
    "type",
    "bool",
    "abs",
    "min",
    "max",
    "round",
    "print",
];

/// The first call in a source line that is not a builtin: `available` in
/// `assert available("kiwi") == 0`, `catalog.search` in `assert
/// len(catalog.search("s")) == 3`.
fn callee(source: &str) -> Option<&str> {
    let b = source.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_alphabetic() || b[i] == b'_' {
            let start = i;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'.') {
                i += 1;
            }
            let name = &source[start..i];
            if b.get(i) == Some(&b'(') && !AROUND.contains(&name) && name != "assert" {
                return Some(name);
            }
        } else if b[i] == b'"' || b[i] == b'\'' {
            // A string's text is not code.
            let quote = b[i];
            i += 1;
            while i < b.len() && b[i] != quote {
                i += 1;
            }
            i += 1;
        } else {
            i += 1;
        }
    }
    None
}

/// With what changed since the last run: the groups holding a new failure
/// first (largest first still, each side), each led by its first new
/// failure. A reader looks at what it just broke before what it has seen.
fn new_first(run: &Run, new: &std::collections::HashSet<&str>, groups: &mut [FailureGroup<'_>]) {
    if new.is_empty() {
        return;
    }
    let is_new = |i: &usize| new.contains(run.tests[*i].node_id.as_str());
    for g in groups.iter_mut() {
        if let Some(at) = g.tests.iter().position(is_new) {
            let first = g.tests.remove(at);
            g.tests.insert(0, first);
        }
    }
    groups.sort_by_key(|g| !is_new(&g.tests[0]));
}

/// How many of `group`'s tests (indices into `run.tests`) are in `new`
/// ([`crate::model::changes::Changes::new_set`]).
pub fn new_in(run: &Run, new: &std::collections::HashSet<&str>, group: &[usize]) -> usize {
    if new.is_empty() {
        return 0;
    }
    group
        .iter()
        .filter(|&&i| new.contains(run.tests[i].node_id.as_str()))
        .count()
}

/// The [`Shape`] of a failing test, or `None` when it has no known place.
pub fn shape(t: &TestResult) -> Option<Shape<'_>> {
    let place = crash_place(t)?;
    let message = t.joined_message();
    let exception = t
        .message()
        .and_then(|m| pytest_text::split_exception(first_line(m)))
        .or_else(|| {
            t.traceback()
                .and_then(pytest_text::last_error_line)
                .and_then(pytest_text::split_exception)
        })
        .map(|(name, _)| name);
    let kind = match t.outcome {
        Outcome::Error => (Outcome::Error, t.phase),
        o => (o, None),
    };
    Some(Shape {
        kind,
        exception,
        place,
        message: message_shape(message.as_deref().unwrap_or_default()),
        rerun: !t.reruns().is_empty(),
        diff: diff_of(t),
    })
}

/// A hash of the diff a failure's captured output shows (an approval
/// test's reporter prints one, `--- approved` / `+++ received` and its
/// `-`/`+` lines); 0 for none. pytest's own comparisons are in the
/// message, whose values [`message_shape`] evens out on purpose: cases of
/// one parametrized test failing on their values stay one failure.
fn diff_of(t: &TestResult) -> u64 {
    use std::hash::{BuildHasher, Hasher};
    let Some(out) = t.stdout().filter(|o| is_unified_diff(o)) else {
        return 0;
    };
    let mut hasher = foldhash::fast::FixedState::with_seed(0).build_hasher();
    for l in out.lines().map(str::trim).filter(|l| is_diff_line(l)) {
        hasher.write(l.as_bytes());
        hasher.write_u8(b'\n');
    }
    hasher.finish().max(1)
}

/// Whether a text holds a unified diff: its `---` and `+++` file lines.
fn is_unified_diff(text: &str) -> bool {
    let mut lines = text.lines().map(str::trim_start);
    lines.any(|l| l.starts_with("--- ")) && lines.any(|l| l.starts_with("+++ "))
}

/// A line of a diff: `-` or `+` and what was removed or added.
fn is_diff_line(line: &str) -> bool {
    let Some(rest) = line.strip_prefix('-').or_else(|| line.strip_prefix('+')) else {
        return false;
    };
    let explanation = rest.starts_with("  where ") || rest.starts_with("  and ");
    !rest.trim().is_empty() && !rest.starts_with(['-', '+']) && !explanation
}

/// Where a test crashed: the deepest pytest frame in the project's own
/// files (or the deepest frame when none is), of the last traceback (other
/// failing phases' come after the test's own); else the first stack frame
/// of another framework's trace that is not the framework's; else the
/// test's own `file:line` (an error with no traceback: its file).
fn crash_place(t: &TestResult) -> Option<(&str, Option<u32>)> {
    let tracebacks = || crash::tracebacks(t);
    for tb in tracebacks() {
        let mut deepest = None;
        // A frame line has a colon; most lines of a traceback have none.
        let frames = tb
            .lines()
            .filter(|l| memchr::memchr(b':', l.as_bytes()).is_some())
            .filter_map(pytest_text::frame_line);
        for f in frames {
            if pytest_text::is_project_path(f.path) || deepest.is_none() {
                deepest = Some(f);
            }
        }
        if let Some(f) = deepest {
            return Some((f.path, Some(f.line)));
        }
    }
    let foreign = tracebacks()
        .flat_map(str::lines)
        .map(str::trim)
        .find(|l| l.starts_with("at ") && !is_framework_frame(l));
    if let Some(frame) = foreign {
        return Some((frame, None));
    }
    let loc = t.location.as_ref()?;
    match loc.line {
        Some(line) => Some((&loc.file, Some(line))),
        // A test that never ran has no traceback, and only its file for a
        // place (a planned test no shard ran, `report --plan`).
        None if t.traceback().is_none() && t.outcome == Outcome::Error => Some((&loc.file, None)),
        None => None,
    }
}

/// Where temporary directories live: a path starting with one of these is
/// a value, not part of a failure's shape.
const TEMP_DIRS: &[&str] = &[
    "/tmp/",
    "/var/folders/",
    "/private/var/folders/",
    "/private/tmp/",
];

/// A message with its values replaced by placeholders, so that failures
/// that differ only in them compare equal: numbers become `<n>` (digits
/// inside a name, as in `test_2`, stay), hex addresses `0x<hex>`, quoted
/// strings on one line `'…'` or `"…"` (an apostrophe inside a word opens
/// none), temporary paths `<tmp>`. A list of values of one kind
/// (`[38, 139, 240]`, `('a', 'b')`) has the shape of one value, so lists
/// that differ only in length compare equal (pytest's `where 177 =
/// total([38, 139, 240])` line differs so from case to case).
pub fn message_shape(message: &str) -> String {
    let b = message.as_bytes();
    let mut out: Vec<u8> = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        // Bytes of a name: ASCII letters, digits, `_`, and all of UTF-8's
        // multi-byte characters.
        let after_name =
            i > 0 && (b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_' || b[i - 1] >= 0x80);
        if c == b'/' && !after_name {
            let end = i + b[i..]
                .iter()
                .position(|&c| c.is_ascii_whitespace() || b"'\",:)]}>".contains(&c))
                .unwrap_or(b.len() - i);
            let path = &message[i..end];
            if TEMP_DIRS.iter().any(|d| path.starts_with(d)) || path.contains("/pytest-of-") {
                out.extend_from_slice(b"<tmp>");
                i = end;
                continue;
            }
        }
        if c == b'0' && !after_name && matches!(b.get(i + 1), Some(b'x' | b'X')) {
            let digits = b[i + 2..]
                .iter()
                .take_while(|c| c.is_ascii_hexdigit())
                .count();
            if digits > 0 {
                push_value(&mut out, b"0x<hex>");
                i += 2 + digits;
                continue;
            }
        }
        if c.is_ascii_digit() && !after_name {
            i += number_len(&b[i..]);
            push_value(&mut out, b"<n>");
            continue;
        }
        if (c == b'\'' || c == b'"') && !after_name {
            let close = b[i + 1..]
                .iter()
                .take_while(|&&x| x != b'\n')
                .position(|&x| x == c);
            if let Some(len) = close {
                let quoted = [&[c][..], "…".as_bytes(), &[c][..]].concat();
                push_value(&mut out, &quoted);
                i += len + 2;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    // Only ASCII bytes were replaced or skipped, so this is still UTF-8.
    String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

/// Writes a value's placeholder, unless it continues a list of the same
/// placeholder (`<n>, ` before `<n>`): then the list stays one value.
fn push_value(out: &mut Vec<u8>, placeholder: &[u8]) {
    const SEP: &[u8] = b", ";
    if out.ends_with(SEP) && out[..out.len() - SEP.len()].ends_with(placeholder) {
        out.truncate(out.len() - SEP.len());
        return;
    }
    out.extend_from_slice(placeholder);
}

/// The length of the number `b` starts with: digits, then a fraction and
/// an exponent if any.
fn number_len(b: &[u8]) -> usize {
    let digits = |from: usize| b[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let mut n = digits(0);
    if b.get(n) == Some(&b'.') && b.get(n + 1).is_some_and(u8::is_ascii_digit) {
        n += 1 + digits(n + 1);
    }
    if matches!(b.get(n), Some(b'e' | b'E')) {
        let sign = usize::from(matches!(b.get(n + 1), Some(b'+' | b'-')));
        let exp = digits(n + 1 + sign);
        if exp > 0 {
            n += 1 + sign + exp;
        }
    }
    n
}

/// Counted passes of parametrized functions (see [`Unlisted::parametrized`]).
impl Unlisted {
    /// Records a counted pass of a parametrization of `function` (once
    /// for a run of them: parametrizations come one after another).
    pub fn add_parametrized(&mut self, function: &str) {
        self.parametrized.push(Self::function_key(function));
    }

    /// Adds the counts of a later part of the same file, or of a later
    /// file of a merge, as if its passes had been counted here one after
    /// the other; its duration sum too (exact: in any grouping, the sum of
    /// every test's).
    pub fn append(&mut self, later: Unlisted) {
        self.passed += later.passed;
        self.tests_duration.join(later.tests_duration);
        self.parametrized.append(later.parametrized);
    }

    /// Which of `functions` (sorted [`Unlisted::function_key`]s) may have
    /// had a parametrization counted: one pass over the keys, done only
    /// when some group could be named by its function.
    pub fn parametrized_among(&self, functions: &[u64]) -> Vec<u64> {
        let mut found: Vec<u64> = self
            .parametrized
            .lists
            .iter()
            .flatten()
            .filter(|k| functions.binary_search(k).is_ok())
            .copied()
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// A hash of the function's id, eight bytes at a step (FxHash's):
    /// quick on short strings, and stable.
    pub fn function_key(function: &str) -> u64 {
        const K: u64 = 0x517c_c1b7_2722_0a95;
        let step = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(K);
        let b = function.as_bytes();
        let mut chunks = b.chunks_exact(8);
        let mut h = step(0, b.len() as u64);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = step(h, u64::from_le_bytes(w));
        }
        let mut w = [0u8; 8];
        w[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
        step(h, u64::from_le_bytes(w))
    }
}

/// [`Unlisted::function_key`]s in the order met, none twice in a row
/// within a list, kept in the lists they were counted in: a merge takes
/// each file's list (100,000 keys for as many passes) as it is, where
/// copying them all into one list was most of a ten-shard merge. Equal
/// when they hold the same keys in the same order, however split.
#[derive(Debug, Clone, Default)]
pub struct FunctionKeys {
    /// Never an empty list.
    lists: Vec<Vec<u64>>,
}

impl FunctionKeys {
    /// Adds `key`, unless it is the last one added.
    pub fn push(&mut self, key: u64) {
        match self.lists.last_mut() {
            Some(list) if list.last() == Some(&key) => {}
            Some(list) => list.push(key),
            None => self.lists.push(vec![key]),
        }
    }

    /// Adds `later`'s keys after these, its lists taken whole.
    pub fn append(&mut self, later: FunctionKeys) {
        self.lists.extend(later.lists);
    }

    /// Whether no key was added.
    pub fn is_empty(&self) -> bool {
        self.lists.is_empty()
    }

    /// The keys in order, a key repeated where one list ends and the next
    /// begins told once.
    fn keys(&self) -> impl Iterator<Item = u64> + '_ {
        let mut last = None;
        self.lists
            .iter()
            .flatten()
            .copied()
            .filter(move |&k| last.replace(k) != Some(k))
    }
}

impl PartialEq for FunctionKeys {
    fn eq(&self, other: &FunctionKeys) -> bool {
        self.keys().eq(other.keys())
    }
}

/// One entry of a group's list of ids: a test, or a whole parametrized
/// function when every parametrization of it in the run is in the group.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdItem<'r> {
    Test(&'r str),
    /// A function id pytest accepts (`tests/test_x.py::test_total`) and
    /// how many parametrizations of it the group holds.
    Function {
        id: &'r str,
        count: usize,
    },
}

/// Which of a group's other ids (`ids`, its first test `first_id` aside)
/// a line names when it names at most `listed` (one more when that one is
/// the last), and how many of the group's `count` tests those leave
/// unnamed, for a `+N more`. The first test counts as named when its whole
/// function is listed.
pub fn listed_ids<'a, 'r>(
    ids: &'a [IdItem<'r>],
    first_id: &str,
    count: usize,
    listed: usize,
) -> (&'a [IdItem<'r>], usize) {
    let shown = if ids.len() <= listed + 1 {
        ids.len()
    } else {
        listed
    };
    let shown = &ids[..shown];
    let covered: usize = shown
        .iter()
        .map(|item| match item {
            IdItem::Test(_) => 1,
            IdItem::Function { count, .. } => *count,
        })
        .sum();
    let function = crate::pytest_text::parametrized_function(first_id);
    let first_covered = shown
        .iter()
        .any(|i| matches!(i, IdItem::Function { id, .. } if function == Some(*id)));
    let rest = count.saturating_sub(covered + usize::from(!first_covered));
    (shown, rest)
}

/// How many parametrizations of each function the run has, to tell when a
/// group holds all of them.
#[derive(Debug, Default)]
pub struct Parametrizations<'r> {
    counts: HashMap<&'r str, usize>,
}

impl<'r> Parametrizations<'r> {
    /// Counts the parametrizations of every function in `run`.
    pub fn of(run: &'r Run) -> Self {
        Self::among(run, 0..run.tests.len())
    }

    /// What [`compress`](Self::compress) needs for `groups`: the
    /// parametrizations of the functions in groups of more than one test
    /// (nothing to count when every group has one).
    pub fn for_groups(run: &'r Run, groups: &[FailureGroup<'_>]) -> Self {
        let shared = groups.iter().filter(|g| g.tests.len() > 1);
        Self::among(run, shared.flat_map(|g| g.tests.iter().copied()))
    }

    /// Counts the parametrizations of the functions of `tests` (indices
    /// into `run.tests`), over the whole run. Only those functions are
    /// counted: a run of a million tests, each its own function, is walked
    /// once with a lookup per test, not made into a million-entry map.
    pub fn among(run: &'r Run, tests: impl IntoIterator<Item = usize>) -> Self {
        let function = |i: usize| pytest_text::parametrized_function(&run.tests[i].node_id);
        let mut counts: HashMap<&str, usize> = tests
            .into_iter()
            .filter_map(function)
            .map(|f| (f, 0))
            .collect();
        if counts.is_empty() {
            return Parametrizations { counts };
        }
        for t in &run.tests {
            if let Some(n) =
                pytest_text::parametrized_function(&t.node_id).and_then(|f| counts.get_mut(f))
            {
                *n += 1;
            }
        }
        // Only a function with two parametrizations or more can stand for
        // a group's; none with a counted, unlisted pass is all failing.
        counts.retain(|_, n| *n > 1);
        if !counts.is_empty() && !run.unlisted.parametrized.is_empty() {
            let mut keys: Vec<u64> = counts.keys().map(|f| Unlisted::function_key(f)).collect();
            keys.sort_unstable();
            let passed = run.unlisted.parametrized_among(&keys);
            counts.retain(|f, _| passed.binary_search(&Unlisted::function_key(f)).is_err());
        }
        Parametrizations { counts }
    }

    /// The ids of `tests` (indices into `run.tests`), in order, with the
    /// parametrizations of a function replaced by the function where the
    /// group holds every one of them (and more than one).
    pub fn compress(&self, run: &'r Run, tests: &[usize]) -> Vec<IdItem<'r>> {
        let mut in_group: HashMap<&str, usize> = HashMap::new();
        for &i in tests {
            if let Some(f) = pytest_text::parametrized_function(&run.tests[i].node_id) {
                *in_group.entry(f).or_default() += 1;
            }
        }
        let mut items = Vec::with_capacity(tests.len());
        let mut listed: Vec<&str> = Vec::new();
        for &i in tests {
            let id = run.tests[i].node_id.as_str();
            let whole = pytest_text::parametrized_function(id).and_then(|f| {
                let n = *in_group.get(f)?;
                (n > 1 && self.counts.get(f) == Some(&n)).then_some((f, n))
            });
            match whole {
                // The function is listed where its first parametrization is.
                Some((f, n)) => {
                    if !listed.contains(&f) {
                        listed.push(f);
                        items.push(IdItem::Function { id: f, count: n });
                    }
                }
                None => items.push(IdItem::Test(id)),
            }
        }
        items
    }
}

#[cfg(test)]
mod tests;
