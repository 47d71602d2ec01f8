//! pytest's dialect of JUnit: node ids built from `classname`, `name` and
//! `file`; its 0-based `line`; cases that are no test (a collection
//! failure, an INTERNALERROR, the empty case an interrupted run leaves);
//! the phase an error happened in; and the second `<testcase>` pytest
//! writes for a test that failed and then errored in teardown.

use super::Parser;
use super::case::{CaseBuilder, Status, Verdict};
use crate::model::{
    Attempt, CollectionError, Location, Outcome, Phase, Subtest, Subtests, TestResult, Xfail,
};
use crate::pytest_text;
use crate::sources::phases;

impl Parser<'_> {
    /// Whether the case being read was written by pytest: the root says so,
    /// or an enclosing suite is pytest's. Per suite, so that a pytest suite
    /// among other frameworks' suites does not turn their ids into paths.
    pub(super) fn in_pytest(&self) -> bool {
        self.document.root_pytest || self.nesting.suites.iter().any(|s| s == "pytest")
    }

    /// Takes a pytest case that is no test (a collection failure, an
    /// INTERNALERROR, an interrupted test's empty case) into the run as
    /// what it is; `false` for a test.
    pub(super) fn pytest_non_test(&mut self, case: &CaseBuilder<'_>, v: &mut Verdict) -> bool {
        if v.status == Some(Status::Error) && v.message.as_deref() == Some("collection failure") {
            // The collector's node id: a module (empty classname) or a class
            // below it, as the JSON report names it.
            let file = if case.classname.is_empty() {
                case.file
                    .as_deref()
                    .map_or_else(|| pytest_text::module_to_path(&case.name), str::to_string)
            } else {
                pytest_text::node_id(&case.classname, &case.name, case.file.as_deref())
            };
            let error = crate::sources::collection_error(file, v.traceback.take());
            self.run.collection_errors.push(error);
            return true;
        }
        if case.classname == "pytest" && case.name == "internal" {
            // pytest's INTERNALERROR: not a test; kept as an error of the
            // session so the reader sees it.
            let traceback = v.traceback.take();
            let (_, message, _) =
                pytest_text::collection_error_summary(traceback.as_deref().unwrap_or_default(), "");
            self.run.collection_errors.push(CollectionError {
                file: "(pytest session)".to_string(),
                error_type: Some("INTERNALERROR".to_string()),
                message,
                line: None,
                traceback,
            });
            return true;
        }
        if case.classname.is_empty() && case.name.is_empty() && v.status.is_none() {
            // An interrupted run leaves an empty `<testcase/>` for the test
            // that was running: it did not finish, so it is no result.
            self.run.notes.push(
                "an empty <testcase> (a test interrupted before it finished) was left out"
                    .to_string(),
            );
            return true;
        }
        false
    }

    /// The id and location of a pytest case, and what pytest's words in
    /// its status element mean (an xfail, a skip reason, an error's phase).
    pub(super) fn pytest_test(
        &mut self,
        case: &CaseBuilder<'_>,
        v: &mut Verdict,
    ) -> (String, Option<Location>) {
        let node_id = if case.classname.is_empty() {
            // A collector's entry (a module skipped at import).
            case.file
                .as_deref()
                .map_or_else(|| pytest_text::module_to_path(&case.name), str::to_string)
        } else {
            self.pytest_node_id(&case.classname, &case.name, case.file.as_deref())
        };
        // pytest's `line` attribute is 0-based.
        let location = case.file.as_deref().map(|file| Location {
            file: self.reuse.files.get(file),
            line: case
                .line
                .as_deref()
                .and_then(|l| l.trim().parse::<u32>().ok())
                .and_then(|l| pytest_text::item_line(file, l)),
        });
        if v.status == Some(Status::Skipped) && v.kind.as_deref() == Some("pytest.xfail") {
            v.xfail = Some(Xfail::XFailed);
        }
        if v.status == Some(Status::Skipped)
            && v.message.as_deref() == Some("collection skipped")
            && let Some(tb) = v.traceback.as_deref()
        {
            v.message = Some(pytest_text::skip_reason(tb));
        }
        if v.outcome == Outcome::Error
            && let Some(m) = v.message.as_deref()
            && let Some((p, inner)) = error_phase(m)
        {
            v.phase = Some(p);
            v.message = Some(inner);
        }
        if v.outcome == Outcome::Error && v.phase.is_none() {
            v.phase = Some(Phase::Call);
        }
        (node_id, location)
    }

    /// pytest's node id for a case, reusing the `path::Class` prefix of the
    /// previous case when it has the same `classname` and `file`.
    fn pytest_node_id(&mut self, classname: &str, name: &str, file: Option<&str>) -> String {
        let cached = self
            .reuse
            .last_prefix
            .as_ref()
            .filter(|(c, f, _)| c == classname && f.as_deref() == file);
        let prefix = match cached {
            Some((_, _, prefix)) => prefix,
            None => {
                let prefix = pytest_text::node_id_prefix(classname, file);
                let entry = self.reuse.last_prefix.insert((
                    classname.to_string(),
                    file.map(str::to_string),
                    prefix,
                ));
                &entry.2
            }
        };
        // The id of a counted test is reused: no allocation per case.
        let mut id = self.reuse.spare_id.take().unwrap_or_default();
        id.clear();
        id.reserve(prefix.len() + name.len() + 2);
        id.push_str(prefix);
        pytest_text::push_test_name(&mut id, name);
        id
    }

    /// Adds a pytest test, folding it into the one before when it is
    /// pytest's second report of that test.
    pub(super) fn add_pytest_test(&mut self, test: TestResult) {
        if self.mid && self.first.is_none() {
            self.first = Some(super::split::First::Pytest(test.node_id.clone()));
        }
        if let Some(previous) = self.tests.latest.as_mut()
            && previous.node_id == test.node_id
        {
            if is_bare_attempt(previous) {
                fold_rerun(previous, test);
                self.tests.folded += 1;
                return;
            }
            // pytest writes a test that failed and then errored in
            // teardown as two `<testcase>` elements with one id: one test.
            fold_second_report(previous, test);
            self.tests.folded += 1;
            return;
        }
        self.replace_latest(test);
    }
}

/// The failed subtests of a pytest case: pytest writes each as one more
/// `<failure>` of its test's case, with its message and traceback but not
/// what it was called, then, for its `subtests` fixture, the test's own
/// (`contains 2 failed subtests`), which the verdict is made of. A case
/// whose failures hold no such line failed by its subtests alone
/// (unittest's `subTest`); a case with one `<failure>` has none to tell.
pub(super) fn subtests(case: &mut CaseBuilder<'_>, v: &mut Verdict) -> Option<Subtests> {
    if v.status != Some(Status::Failure) {
        return None;
    }
    let later = case.take_later_failures();
    if later.is_empty() {
        return None;
    }
    let first = Subtest::new(None, v.message.take(), v.traceback.take());
    let mut failed = vec![first];
    failed.extend(
        later
            .into_iter()
            .map(|(m, t)| Subtest::new(None, m, Some(t))),
    );
    let own = failed
        .last()
        .and_then(|s| s.message.as_deref())
        .is_some_and(Subtests::is_summary);
    if own && let Some(last) = failed.pop() {
        v.message = last.message;
        v.traceback = last.traceback;
    }
    Some(Subtests {
        failed,
        test_passed: !own,
    })
}

/// Whether a case, followed by another of the same id, is an earlier
/// attempt of a test pytest-rerunfailures reran: pytest writes such an
/// attempt (outcome "rerun", neither passed nor failed to pytest's JUnit
/// writer) as a case with no status element. A case that really passed is
/// never written twice (pytest's second case of a test follows a failure,
/// for an error in teardown), so a bare case means a failed attempt, whose
/// message pytest did not write.
fn is_bare_attempt(case: &TestResult) -> bool {
    case.outcome == Outcome::Passed
        && case.xfail.is_none()
        && case.message().is_none()
        && case.phase_failures().is_empty()
}

/// Folds the next case of a test into its earlier, failed attempt (see
/// [`is_bare_attempt`]): the later case stands.
fn fold_rerun(kept: &mut TestResult, mut later: TestResult) {
    std::mem::swap(kept, &mut later);
    let earlier = later;
    let mut reruns = earlier.reruns().to_vec();
    reruns.push(Attempt::failed(None));
    reruns.extend(kept.take_reruns());
    kept.set_reruns(reruns);
    kept.duration = phases::add_durations(kept.duration, earlier.duration);
    if kept.location.is_none() {
        kept.location = earlier.location;
    }
}

/// Folds a second JUnit report of the same pytest test into the first by
/// the rules of [`phases`]: the stronger outcome decides, the other's
/// failure is kept as another phase's.
fn fold_second_report(kept: &mut TestResult, mut other: TestResult) {
    // Keep the deciding report in `kept`, the other in `other`.
    if phases::decides_over(other.outcome, kept.outcome) {
        std::mem::swap(kept, &mut other);
    }
    let (strong, weak) = (kept, other);
    if weak.is_problem() {
        phases::also_failed(
            strong,
            weak.phase.unwrap_or(Phase::Call),
            weak.message(),
            weak.traceback(),
        );
    }
    strong.duration = phases::add_durations(strong.duration, weak.duration);
    if strong.location.is_none() {
        strong.location = weak.location;
    }
}

/// Reads pytest's JUnit error message `failed on setup with "..."` into the
/// phase and the inner message.
pub(super) fn error_phase(message: &str) -> Option<(Phase, String)> {
    let (phase, rest) = if let Some(rest) = message.strip_prefix("failed on setup with ") {
        (Phase::Setup, rest)
    } else if let Some(rest) = message.strip_prefix("failed on teardown with ") {
        (Phase::Teardown, rest)
    } else {
        return None;
    };
    let inner = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .unwrap_or(rest);
    Some((phase, inner.to_string()))
}
