//! A JUnit `timestamp` as seconds since the Unix epoch.
//!
//! Writers differ: pytest writes its local time with an offset
//! (`2024-05-01T12:00:00.123456+02:00`), older pytest, Jest and Maven
//! Surefire write it without one (`2024-05-01T12:00:00`), some end it in
//! `Z`. A time without an offset is taken as UTC: the file does not say
//! where it was written, and a start time that is off by the writer's
//! offset is still the right day.

use chrono::{DateTime, NaiveDateTime};

/// `text` as seconds since the epoch; none when it is no ISO 8601 date
/// and time, or before 1970.
pub(crate) fn epoch_seconds(text: &str) -> Option<f64> {
    let text = text.trim();
    let at = match DateTime::parse_from_rfc3339(text) {
        Ok(t) => t.timestamp_micros(),
        Err(_) => naive(text)?.and_utc().timestamp_micros(),
    };
    (at > 0).then(|| at as f64 / 1e6)
}

/// A date and time without an offset, with or without a fraction, with
/// `T` or a space between them.
fn naive(text: &str) -> Option<NaiveDateTime> {
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(text, f).ok())
}

#[cfg(test)]
mod tests;
