//! ADR-006's summary object, the counts in their order: one writer for
//! the JSON report and the tools' structured results.

use serde::Serializer;
use serde::ser::SerializeStruct;

use crate::model::Counts;

/// ADR-006's summary object: the counts (collection errors and warnings
/// are given elsewhere), with the duration after `errors` when there is
/// one to give (the structured result gives it beside the counts). One
/// writer for the JSON report and the structured result: the same keys
/// in the same order.
pub fn summary<S: Serializer>(
    serializer: S,
    c: &Counts,
    duration: Option<Option<f64>>,
) -> Result<S::Ok, S::Error> {
    let mut s = serializer.serialize_struct("Summary", 9)?;
    let head = [
        ("total", c.total),
        ("passed", c.passed),
        ("failed", c.failed),
        ("skipped", c.skipped),
        ("errors", c.errors),
    ];
    for (key, n) in head {
        s.serialize_field(key, &n)?;
    }
    if let Some(d) = duration {
        s.serialize_field("duration", &d)?;
    }
    for (key, n) in [
        ("xfailed", c.xfailed),
        ("xpassed", c.xpassed),
        ("flaky", c.flaky),
    ] {
        s.serialize_field(key, &n)?;
    }
    // Only when some test has failed subtests (counted in `failed`).
    if c.subtests_failed > 0 {
        s.serialize_field("subtests_failed", &c.subtests_failed)?;
    }
    s.end()
}
