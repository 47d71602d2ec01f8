//! The sum of tests' durations, the same whatever the order of its terms.

/// A sum of durations in seconds, kept exact in whole nanoseconds.
///
/// A floating-point sum depends on the order and grouping of its terms
/// (`0.1 + (0.2 + 0.3)` is not `(0.1 + 0.2) + 0.3`), and a run's tests are
/// summed in more than one grouping: over the full list of a run read whole
/// ([`Run::duration_secs`](super::Run::duration_secs)), file by file and
/// part by part of a file when plain passes are counted instead of listed
/// (`ReadOptions::passing_as_counts`, [`Unlisted`](super::Unlisted)), then
/// across the files of a merge. Integers add exactly, in any order: each
/// duration rounded to the nanosecond (finer than any results file
/// records), the counted and the listed reads of the same files give the
/// same total to the last bit, and so the same rendering.
///
/// Odd terms, which no reader gives (they drop a time that is negative or
/// not a number), keep the sum exact: a duration that is not finite (NaN,
/// an infinity) counts as nothing; a negative one is summed as it is; one
/// beyond ±292 years (an `i64` of nanoseconds) counts as that bound, so
/// that the `i128` cannot overflow before 2^64 terms.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DurationSum {
    nanos: i128,
}

impl DurationSum {
    /// The sum of `durations`, in seconds.
    pub fn of(durations: impl IntoIterator<Item = f64>) -> DurationSum {
        let mut sum = DurationSum::default();
        for d in durations {
            sum.add(d);
        }
        sum
    }

    /// Adds a duration in seconds.
    pub fn add(&mut self, secs: f64) {
        if secs.is_finite() {
            // `as` saturates at the bounds of `i64`.
            self.nanos += i128::from((secs * 1e9).round() as i64);
        }
    }

    /// Adds another sum's terms.
    pub fn join(&mut self, other: DurationSum) {
        self.nanos += other.nanos;
    }

    /// The sum in seconds (`+0.0` for no term).
    pub fn secs(self) -> f64 {
        self.nanos as f64 / 1e9
    }
}
