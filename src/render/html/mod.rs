//! The HTML report (`--format html`): one self-contained page made from
//! the [`Run`] (and the comparison with a baseline when there is one), for
//! people to open, keep and print.
//!
//! ```text
//! header     status, counts, an SVG bar of outcomes        summary.rs
//! trend      with a history of runs, the last runs as an   history.rs
//!            SVG chart (passed, failed, flaky; duration
//!            as a line) and as a table, folded
//! baseline   new failures, fixed, still failing            summary.rs
//! failures   one block per root-cause group, open:         failures.rs
//!            message, `at file:line`, source line, output;
//!            with a history of runs, how it stands (new,
//!            failing since when, flaky at what rate) and
//!            its strip of recent outcomes (history.rs)
//! slower     tests slower than usual (history of runs)     history.rs
//! slowest    the 10 slowest tests                          summary.rs
//! tests      every test, by file (passes collapsed), with  list.rs
//!            its duration; filter (by outcome, and flaky
//!            tests with a history of runs), search, sort
//! ```
//!
//! **Self-contained and strict.** The style and the script are inline
//! (`templates/report.css`, `templates/report.js`) and named by their
//! SHA-256 in a Content-Security-Policy of `default-src 'none'`: nothing is
//! loaded, and no other script or style runs, whatever a test wrote. The
//! script is the same for every page (the data is the page's own markup,
//! never embedded in it), so its hash is worked out once.
//!
//! **Scripts are a bonus.** Without them every failure is shown with its
//! detail, the files' lists open and close (`<details>`), and the controls
//! (hidden until the script shows them) are not there; printing expands
//! everything and drops the controls.
//!
//! **Small rows.** A test is one `<tr>` with a one-letter class and three
//! cells, its id shown without the file it is listed under: 100,000 cases
//! make a page of about 7 MB that Chromium opens in a couple of seconds.
//!
//! **Nothing from a test is markup**: every text goes through
//! [`escape::push`]. Pages for errors and discovery, which have no run, are
//! their Markdown through pulldown-cmark ([`markdown_page`]).

mod coverage;
mod escape;
mod failures;
mod history;
mod list;
mod markdown_page;
mod summary;

use foldhash::{HashMap, HashMapExt, HashSet};
use std::sync::OnceLock;

use base64::Engine as _;
use sha2::{Digest as _, Sha256};

use crate::budget::{Fitted, Offer};
use crate::model::Run;
use crate::model::baseline::Comparison;
use crate::render::view::{self, Compared, New};
use crate::render::{Style, TITLE};

pub use markdown_page::markdown_page;

const TEMPLATE: &str = include_str!("../../../templates/report.html");
const STYLE: &str = include_str!("../../../templates/report.css");
const SCRIPT: &str = include_str!("../../../templates/report.js");

/// A run's page, never cut: a document for people. Every output's offer
/// takes the same three.
pub fn offer<'a>(run: &'a Run, compared: Option<&'a Compared>, _: &'a Style) -> Offer<'a, Fitted> {
    let comparison = compared.map(|c| &c.comparison);
    Offer::Whole(Fitted::whole(report(run, comparison, TITLE)))
}

/// The report of `run` as a complete page titled `title`, with the
/// comparison with a baseline when given.
pub fn report(run: &Run, comparison: Option<&Comparison>, title: &str) -> String {
    // The groups in the order every output has without a comparison (new
    // failures by the history of runs first, flaky ones last): the page
    // lists a baseline's new failures apart (`summary::baseline`).
    let groups = view::failure_groups(run, New::SinceLastRun);
    // Where each failing test's group is shown: `#g<n>`.
    let mut group_of: HashMap<usize, usize> = HashMap::new();
    for (n, g) in groups.iter().enumerate() {
        group_of.extend(g.tests.iter().map(|&t| (t, n)));
    }
    let flaky = view::flaky(run);
    // With a history of runs the list marks and filters the flaky tests:
    // the flaky groups' and those that passed only after failing.
    let flaky_rows: Option<HashSet<usize>> = run.history.as_ref().map(|_| {
        let failed = groups.iter().filter(|g| g.is_flaky());
        let passed = run.tests.iter().enumerate().filter(|(_, t)| t.is_flaky());
        failed
            .flat_map(|g| g.tests.iter().copied())
            .chain(passed.map(|(i, _)| i))
            .collect()
    });
    let slowest = view::slowest(run, summary::SLOWEST);
    let slower = view::slower(run);
    let trend = view::trend(run, history::TREND_RUNS).is_some();
    let mut body = String::with_capacity(run.tests.len() * 90 + 32 * 1024);
    let counts = run.counts();
    summary::header(&mut body, run, &counts, title);
    let shown = summary::Sections {
        baseline: comparison.is_some(),
        groups: groups.len(),
        flaky: !flaky.is_empty(),
        slowest: !slowest.is_empty(),
        trend,
        slower: !slower.is_empty(),
    };
    summary::contents(&mut body, run, &shown);
    history::trend(&mut body, run);
    if let Some(c) = comparison {
        summary::baseline(&mut body, run, c, &group_of);
    }
    failures::write(&mut body, run, &groups, &flaky);
    coverage::write(&mut body, run);
    history::slower(&mut body, &slower);
    summary::slowest(&mut body, run, &slowest, &group_of);
    let links = list::Links {
        group_of: &group_of,
        flaky: flaky_rows.as_ref(),
    };
    list::write(&mut body, run, &counts, &links);
    summary::notes(&mut body, run);
    fill(&escape::escape(title), &body)
}

/// The template with its placeholders filled in. The template is read
/// once from start to end, so nothing put in is looked at again (a title
/// saying `{{body}}` stays text).
fn fill(title: &str, body: &str) -> String {
    let (style_hash, script_hash) = hashes();
    let csp = format!(
        "default-src 'none'; style-src '{style_hash}'; script-src '{script_hash}'; \
         base-uri 'none'; form-action 'none'"
    );
    let mut page = String::with_capacity(TEMPLATE.len() + STYLE.len() + SCRIPT.len() + body.len());
    let mut rest = TEMPLATE;
    while let Some(start) = rest.find("{{") {
        let Some(len) = rest[start..].find("}}") else {
            break;
        };
        page.push_str(&rest[..start]);
        page.push_str(match &rest[start + 2..start + len] {
            "title" => title,
            "csp" => &csp,
            "style" => STYLE,
            "script" => SCRIPT,
            "body" => body,
            _ => "",
        });
        rest = &rest[start + len + 2..];
    }
    page.push_str(rest);
    page
}

/// The CSP sources of the inline style and script: `sha256-<base64>`.
fn hashes() -> &'static (String, String) {
    static HASHES: OnceLock<(String, String)> = OnceLock::new();
    HASHES.get_or_init(|| (source_hash(STYLE), source_hash(SCRIPT)))
}

fn source_hash(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let b64 = base64::engine::general_purpose::STANDARD.encode(digest);
    format!("sha256-{b64}")
}

/// A duration for people: `0.012s`, `12.35s`, `123.5s`; the script sorts
/// by the number it starts with.
fn secs(d: f64) -> String {
    match d {
        d if d < 10.0 => format!("{d:.3}s"),
        d if d < 100.0 => format!("{d:.2}s"),
        d => format!("{d:.1}s"),
    }
}

#[cfg(test)]
mod tests;
