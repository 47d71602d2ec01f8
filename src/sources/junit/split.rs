//! One large JUnit file read on several threads.
//!
//! pytest writes a report as one `<testsuite>` holding one `<testcase>`
//! after another, and so do most frameworks for a large suite. Between two
//! cases the reader's state is small and predictable: the open elements,
//! the suites' names and how many cases each has had. So the text after the
//! first case is cut at later `<testcase`s into parts, and each part is
//! read on a thread of its own from the state the reader had at the first
//! case, the innermost suite's count moved on by the cases in between,
//! while this thread reads up to the first cut.
//!
//! The guess is checked, never trusted. A part whose text before it holds a
//! `<testsuite` is not guessed at all. This thread's reader must stop
//! exactly at the cut (so the cut is an element's start, not `<testcase`
//! in a comment, CDATA or an attribute) in exactly the guessed state; a
//! part must end exactly at the next cut; and a part's first test must not
//! be one that folds into the test before it (a rerun, pytest's second
//! report of one test). Only then are a part's results taken: its tests
//! after these, its duration sum added to theirs (exact, so the same as
//! one thread's: `model::DurationSum`). Otherwise — a wrong guess, a part
//! that does not parse — this thread reads on from the cut as if it had
//! never split, or, when an earlier part was already taken, reads the file
//! again from the start: the result, or the error, is always exactly the
//! one-thread read's (`split/tests.rs` cuts every fixture at every case
//! and every pair of cases to show it, and the fuzz target does the same).

use memchr::memmem;

use super::{Document, Nesting, Parser, Reached, Sink, read_serial};
use crate::sources::{ParseError, ReadOptions};

/// Below this many bytes a part is not worth a thread.
const MIN_PART: usize = 1 << 20;

/// What a part's first test needs from the test before it: it would fold
/// into that test when pytest's ids are equal, or when another framework's
/// suites and id are.
#[derive(Debug)]
pub(super) enum First {
    Pytest(String),
    Foreign(String),
}

/// The reader's state where a part starts.
#[derive(Debug, Clone, PartialEq)]
struct Context {
    document: Document,
    nesting: Nesting,
}

/// Reads `text` on up to `options.threads` threads; `None` when it is too
/// small to be worth it or holds no case: then the caller reads it on one.
pub(super) fn read(text: &str, options: ReadOptions) -> Option<Result<Parser<'_>, ParseError>> {
    let parts = options.threads.min(text.len() / MIN_PART);
    if parts < 2 {
        return None;
    }
    let first = memmem::find(text.as_bytes(), b"<testcase")?;
    let targets = (1..parts).map(|i| first + (text.len() - first) * i / parts);
    Some(read_at(text, options, first, &cuts(text, targets)).map(|(parser, _)| parser))
}

/// The first `<testcase` at or after each of the increasing `targets`,
/// each cut after the one before.
pub(super) fn cuts(text: &str, targets: impl Iterator<Item = usize>) -> Vec<usize> {
    let finder = memmem::Finder::new(b"<testcase");
    let mut cuts: Vec<usize> = Vec::new();
    for target in targets {
        let from = target.max(cuts.last().map_or(0, |c| c + 1));
        if let Some(at) = text
            .as_bytes()
            .get(from..)
            .and_then(|rest| finder.find(rest))
        {
            cuts.push(from + at);
        }
    }
    cuts
}

/// Reads `text` in parts starting at `cuts` (increasing, after `first`,
/// the first `<testcase`): the first part here, the others on threads of
/// their own. Also says how many of those others were taken.
pub(super) fn read_at<'a>(
    text: &'a str,
    options: ReadOptions,
    first: usize,
    cuts: &[usize],
) -> Result<(Parser<'a>, usize), ParseError> {
    let mut main = Parser::new(text, options);
    let start = match main.read_to(Some(first as u64))? {
        Reached::Stop => main.context(),
        Reached::Past | Reached::Eof => None,
    };
    let (Some(start), Some(&cut)) = (start, cuts.first()) else {
        main.finish()?;
        return Ok((main, 0));
    };
    let (reached, parts) = std::thread::scope(|scope| {
        let threads: Vec<_> = cuts
            .iter()
            .enumerate()
            .map(|(i, &offset)| {
                let stop = cuts.get(i + 1).copied();
                let start = &start;
                std::thread::Builder::new()
                    .spawn_scoped(scope, move || {
                        read_part(text, options, first, offset, stop, start)
                    })
                    .ok()
            })
            .collect();
        let reached = main.read_to(Some(cut as u64));
        // A thread that could not start or panicked gives no part.
        let parts: Vec<_> = threads
            .into_iter()
            .map(|t| t.and_then(|t| t.join().ok().flatten()))
            .collect();
        (reached, parts)
    });
    if reached? != Reached::Stop {
        // The cut was no element's start: this is a one-thread read.
        main.finish()?;
        return Ok((main, 0));
    }
    let mut taken = 0;
    for part in parts {
        let Some((part, guess)) = part else { break };
        if main.context().as_ref() != Some(&guess) || !main.append(part) {
            break;
        }
        taken += 1;
    }
    match taken {
        // Nothing taken: this parser is at the first cut, as a one-thread
        // read would be, and reads on.
        0 => main.finish()?,
        n if n == cuts.len() => main.eof()?,
        // A later part was wrong, after an earlier one was taken.
        _ => return Ok((read_serial(text, options)?, 0)),
    }
    Ok((main, taken))
}

/// Reads the part of `text` from `offset` (up to `stop`, else to the end)
/// from the state at the first case (at `first`) moved on to `offset`;
/// `None` unless a suite's state can be guessed there, and the part
/// parses and ends exactly at `stop`. The guess comes back with the part.
fn read_part<'a>(
    text: &'a str,
    options: ReadOptions,
    first: usize,
    offset: usize,
    stop: Option<usize>,
    start: &Context,
) -> Option<(Parser<'a>, Context)> {
    let guess = start.moved_on(cases_between(text.as_bytes().get(first..offset)?)?);
    let mut part = Parser::new(text.get(offset..)?, options);
    part.input = text;
    part.base = offset as u64;
    part.mid = true;
    let config = part.reader.config_mut();
    config.check_end_names = false;
    config.allow_unmatched_ends = true;
    part.document = guess.document.clone();
    part.nesting = guess.nesting.clone();
    match (part.read_to(stop.map(|s| s as u64)).ok()?, stop) {
        (Reached::Stop, Some(_)) | (Reached::Eof, None) => Some((part, guess)),
        _ => None,
    }
}

/// How many `<testcase`s `bytes` hold; `None` when they also hold a
/// `<testsuite` (then the state after them is not the state before them
/// with more cases counted).
fn cases_between(bytes: &[u8]) -> Option<usize> {
    let mut cases = 0;
    for at in memmem::find_iter(bytes, b"<test") {
        let rest = &bytes[at + 5..];
        if rest.starts_with(b"case") {
            cases += 1;
        } else if rest.starts_with(b"suite") {
            return None;
        }
    }
    Some(cases)
}

impl Context {
    /// The state at a case `cases` cases after the one this is the state at.
    fn moved_on(&self, cases: usize) -> Context {
        let mut moved = self.clone();
        if let Some(n) = moved.nesting.positions.last_mut() {
            *n += cases;
        }
        moved
    }
}

impl<'a> Parser<'a> {
    /// The state to compare with a guess; `None` inside a case or text.
    fn context(&self) -> Option<Context> {
        let r = &self.reading;
        let idle = r.case.is_none()
            && r.pending.is_none()
            && r.suite_status.is_none()
            && r.sink == Sink::None;
        idle.then(|| Context {
            document: self.document.clone(),
            nesting: self.nesting.clone(),
        })
    }

    /// Takes the results of the part read after this one, as if this parser
    /// had read it; `false` (and nothing taken) when the part's first test
    /// might fold into this parser's latest.
    fn append(&mut self, part: Parser<'a>) -> bool {
        let folds = match &part.first {
            Some(First::Pytest(id)) => self.tests.latest.as_ref().is_some_and(|t| &t.node_id == id),
            Some(First::Foreign(key)) => self.tests.last_key.as_deref() == Some(key.as_str()),
            None => false,
        };
        if folds {
            return false;
        }
        let Parser {
            mut run,
            document,
            nesting,
            reading,
            tests,
            reuse,
            first,
            ..
        } = part;
        if first.is_some() {
            self.settle_latest();
            self.tests.latest = tests.latest;
        }
        if tests.last_key.is_some() {
            self.tests.last_key = tests.last_key;
        }
        self.tests.cases += tests.cases;
        self.tests.folded += tests.folded;
        self.tests.settle.append(tests.settle);
        self.run.tests.append(&mut run.tests);
        self.run
            .collection_errors
            .append(&mut run.collection_errors);
        self.run.notes.append(&mut run.notes);
        self.run.unlisted.append(run.unlisted);
        self.document = document;
        self.nesting = nesting;
        self.reading = reading;
        self.reuse = reuse;
        true
    }
}

#[cfg(test)]
mod tests;
