use super::*;

fn run(tests: &[(&str, Outcome)], duration: f64) -> Run {
    Run {
        tests: tests
            .iter()
            .map(|(id, o)| TestResult::new(*id, *o))
            .collect(),
        duration: Some(duration),
        ..Run::default()
    }
}

#[test]
fn every_kind_of_change() {
    let before = run(
        &[
            ("a", Outcome::Passed),
            ("b", Outcome::Failed),
            ("c", Outcome::Failed),
            ("gone", Outcome::Passed),
        ],
        10.0,
    );
    let after = run(
        &[
            ("a", Outcome::Failed),
            ("b", Outcome::Passed),
            ("c", Outcome::Error),
            ("new", Outcome::Failed),
        ],
        12.0,
    );
    let c = compare(&after, &before);
    assert_eq!(c.new_failures, ["a", "new"]);
    assert_eq!(c.fixed, ["b"]);
    assert_eq!(c.still_failing, ["c"]);
    assert_eq!(c.added, ["new"]);
    assert_eq!(c.removed, ["gone"]);
    assert_eq!(
        c.phrase(),
        "2 new failures, 1 fixed, 1 still failing, 1 added, 1 removed, +2.0s (+20%)"
    );
}

/// A change too small for tenths of a second is said in milliseconds,
/// not as "+0.0s"; no change stays "+0.0s".
#[test]
fn small_changes_in_milliseconds() {
    let at = |secs| run(&[("a", Outcome::Passed)], secs);
    let tail = |after: f64, before: f64| {
        let phrase = compare(&at(after), &at(before)).phrase();
        phrase.rsplit(", ").next().unwrap_or_default().to_string()
    };
    assert_eq!(tail(0.143, 0.131), "+12ms (+9%)");
    assert_eq!(tail(0.131, 0.143), "-12ms (-8%)");
    assert_eq!(tail(1.0, 1.0), "+0.0s (+0%)");
    assert_eq!(tail(1.5, 1.0), "+0.5s (+50%)");
}
