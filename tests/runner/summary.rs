//! pytest's own summary of a plain run, the reference every answer is
//! checked against, and the check of both formats against it.

use super::*;
use crate::common::headline::{self, Verdict, before_counts, run_failed, says};

// ---------------------------------------------------------------------------
// pytest's own summary, as the reference
// ---------------------------------------------------------------------------

/// Counts per test, the way our model counts (ARCHITECTURE.md, Outcomes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Counts {
    pub(crate) total: u64,
    pub(crate) passed: u64,
    pub(crate) failed: u64,
    pub(crate) skipped: u64,
    pub(crate) errors: u64,
    pub(crate) xfailed: u64,
    pub(crate) xpassed: u64,
}

impl Counts {
    pub(crate) fn from_summary(summary: &Value) -> Counts {
        let n = |key: &str| {
            summary[key]
                .as_u64()
                .unwrap_or_else(|| panic!("summary.{key} missing in {summary}"))
        };
        Counts {
            total: n("total"),
            passed: n("passed"),
            failed: n("failed"),
            skipped: n("skipped"),
            errors: n("errors"),
            xfailed: n("xfailed"),
            xpassed: n("xpassed"),
        }
    }
}

/// What a plain `pytest -q -rA` run of a copy said.
#[derive(Debug)]
pub(crate) struct Reference {
    pub(crate) exit: i32,
    /// The final counts line, word -> number ("errors", "warnings" plural).
    pub(crate) line: BTreeMap<String, u64>,
    /// Outcome per test id, as our model counts it.
    pub(crate) outcomes: BTreeMap<String, &'static str>,
    /// Files (or ids) that failed to collect.
    pub(crate) collection_errors: BTreeSet<String>,
    pub(crate) counts: Counts,
    pub(crate) output: String,
    /// True when pytest's standard output was valid UTF-8.
    pub(crate) utf8: bool,
}

/// Parses pytest's final counts line ("1 failed, 3 passed, 5 errors in
/// 0.07s", "no tests ran in 0.01s").
pub(crate) fn counts_line(output: &str) -> BTreeMap<String, u64> {
    for line in output.lines().rev() {
        let line = line.trim().trim_matches('=').trim();
        if line.starts_with("no tests ran in ") {
            return BTreeMap::new();
        }
        let Some((counts, _)) = line.rsplit_once(" in ") else {
            continue;
        };
        let parsed: Option<BTreeMap<String, u64>> = counts
            .split(", ")
            .map(|part| {
                let (n, word) = part.split_once(' ')?;
                let word = match word {
                    "error" => "errors",
                    "warning" => "warnings",
                    w => w,
                };
                Some((word.to_string(), n.parse().ok()?))
            })
            .collect();
        if let Some(map) = parsed {
            return map;
        }
    }
    panic!("no counts line in pytest's output:\n{output}");
}

/// Runs pytest on the copy and derives the per-test counts from its
/// summary: the `-rA` lines say which test got which reports, the counts
/// line says how many reports of each kind there were.
pub(crate) fn reference(project: &Project, python: &Path, extra: &[&str]) -> Reference {
    let mut args = vec!["-q", "-rA"];
    args.extend_from_slice(extra);
    let answer = plain_pytest(project, python, &args);
    let output = String::from_utf8_lossy(&answer.stdout).into_owned();
    let utf8 = std::str::from_utf8(&answer.stdout).is_ok();
    let line = counts_line(&output);
    let collection_errors: BTreeSet<String> = output
        .lines()
        .filter_map(|l| l.split_once(" ERROR collecting ").map(|(_, rest)| rest))
        .map(|rest| rest.trim_end_matches(['_', ' ']).to_string())
        .collect();
    let mut reports: BTreeMap<String, BTreeSet<&'static str>> = BTreeMap::new();
    let mut seen: BTreeMap<&'static str, u64> = BTreeMap::new();
    for l in output.lines() {
        for word in ["PASSED", "FAILED", "ERROR", "XFAIL", "XPASS"] {
            let Some(rest) = l.strip_prefix(word).and_then(|r| r.strip_prefix(' ')) else {
                continue;
            };
            let id = rest.split(" - ").next().unwrap_or(rest).trim().to_string();
            *seen.entry(word).or_default() += 1;
            if !collection_errors.contains(&id) {
                reports.entry(id).or_default().insert(word);
            }
        }
    }
    // The -rA lines agree with pytest's own counts line.
    let from_line = |w: &str| line.get(w).copied().unwrap_or(0);
    for (word, key) in [
        ("PASSED", "passed"),
        ("FAILED", "failed"),
        ("ERROR", "errors"),
        ("XFAIL", "xfailed"),
        ("XPASS", "xpassed"),
    ] {
        assert_eq!(
            seen.get(word).copied().unwrap_or(0),
            from_line(key),
            "pytest's {word} lines disagree with its counts line:\n{output}"
        );
    }
    let outcomes: BTreeMap<String, &'static str> = reports
        .iter()
        .map(|(id, r)| {
            let outcome = if r.contains("ERROR") {
                "error"
            } else if r.contains("FAILED") {
                "failed"
            } else if r.contains("XFAIL") {
                "xfailed"
            } else if r.contains("XPASS") {
                "xpassed"
            } else {
                "passed"
            };
            (id.clone(), outcome)
        })
        .collect();
    let count = |o: &str| outcomes.values().filter(|v| **v == o).count() as u64;
    let mut counts = Counts {
        passed: count("passed") + count("xpassed"),
        failed: count("failed"),
        errors: count("error"),
        xfailed: count("xfailed"),
        xpassed: count("xpassed"),
        skipped: from_line("skipped") + count("xfailed"),
        total: 0,
    };
    counts.total = counts.passed + counts.failed + counts.skipped + counts.errors;
    Reference {
        exit: answer.status.expect("pytest exited"),
        line,
        outcomes,
        collection_errors,
        counts,
        output,
        utf8,
    }
}

/// Our outcome for a reference outcome.
pub(crate) fn model_outcome(reference: &str) -> &str {
    match reference {
        "xfailed" => "skipped",
        "xpassed" => "passed",
        o => o,
    }
}

/// The status ARCHITECTURE.md gives for a result.
pub(crate) fn status_verdict(exit: i32, counts: &Counts, collection_errors: usize) -> Verdict {
    if collection_errors > 0 || counts.failed + counts.errors > 0 {
        Verdict::Failure
    } else if exit == 5 || counts.total == 0 {
        Verdict::NoTests
    } else {
        Verdict::Success
    }
}

/// What the header's counts phrase adds for one count alone (`, 2 errors`):
/// its words after the `0 run, 0 failed` of nothing else.
fn count_alone(one: headline::Counts) -> String {
    let none = run_failed(0, 0);
    headline::counts(one)
        .strip_prefix(&none)
        .unwrap_or_else(|| panic!("the counts phrase of {one:?} does not start with `{none}`"))
        .to_string()
}

/// `run` on a copy of `name`, both formats, against a plain pytest run.
/// Returns the JSON and the Markdown answers for further checks.
pub(crate) fn matches_pytest(name: &str, python: &Path, expected_exit: i32) -> (Value, String) {
    let project = Project::copy(name);
    let (answer, value) = run_json(&project, python, &[]);
    let (md_answer, markdown) = run_markdown(&project, python, &[]);
    let pytest = reference(&project, python, &[]);
    println!(
        "{name}: pytest exit {} counts line {:?}; expected per test {:?}",
        pytest.exit, pytest.line, pytest.counts
    );
    assert_eq!(
        pytest.exit, expected_exit,
        "the project {name} no longer does what this test expects:\n{}",
        pytest.output
    );

    let errors = check_json(name, &answer, &value, &pytest);
    check_markdown(name, &md_answer, &markdown, &pytest, &errors);
    (value, markdown)
}

/// The JSON answer (ADR-006) against pytest's run: exit code, counts,
/// outcome per test, XFAIL/XPASS messages, collection errors. Returns the
/// files that failed to collect.
fn check_json(name: &str, answer: &Answer, value: &Value, pytest: &Reference) -> BTreeSet<String> {
    assert_eq!(answer.status, Some(pytest.exit), "{}", answer.stderr);
    assert!(
        value.get("error").is_none(),
        "a result, not an error: {value}"
    );
    assert_eq!(value["exit_code"], pytest.exit);
    let counts = Counts::from_summary(&value["summary"]);
    assert_eq!(counts, pytest.counts, "summary of {name} vs pytest's");
    let tests = value["tests"].as_array().expect("tests");
    let ours: BTreeMap<String, String> = tests
        .iter()
        .map(|t| {
            (
                t["node_id"].as_str().expect("node_id").to_string(),
                t["outcome"].as_str().expect("outcome").to_string(),
            )
        })
        .collect();
    assert_eq!(ours.len(), tests.len(), "duplicate test ids: {tests:?}");
    let expected: BTreeMap<String, String> = pytest
        .outcomes
        .iter()
        .map(|(id, o)| (id.clone(), model_outcome(o).to_string()))
        .collect();
    // Skipped tests appear in -rA by location, not by id: compare the rest.
    let ours_not_skipped: BTreeMap<String, String> = ours
        .iter()
        .filter(|(id, o)| *o != "skipped" || expected.contains_key(*id))
        .map(|(id, o)| (id.clone(), o.clone()))
        .collect();
    assert_eq!(ours_not_skipped, expected, "outcome per test of {name}");
    for t in tests {
        let id = t["node_id"].as_str().unwrap_or_default();
        match pytest.outcomes.get(id).copied() {
            Some("xfailed") => assert!(
                t["message"].as_str().unwrap_or("").starts_with("XFAIL"),
                "{t}"
            ),
            Some("xpassed") => assert!(
                t["message"].as_str().unwrap_or("").starts_with("XPASS"),
                "{t}"
            ),
            _ => {}
        }
    }
    let errors: BTreeSet<String> = value["collection_errors"]
        .as_array()
        .expect("collection_errors")
        .iter()
        .map(|e| e["file"].as_str().expect("file").to_string())
        .collect();
    assert_eq!(errors, pytest.collection_errors, "collection errors");
    assert_eq!(
        counts.errors + errors.len() as u64,
        pytest.line.get("errors").copied().unwrap_or(0),
        "pytest's `N errors` = test errors + collection errors"
    );
    errors
}

/// The Markdown answer against pytest's run: the status word and counts of
/// its header, a section (or a place in a group) for every failure, and a
/// section for every collection error.
fn check_markdown(
    name: &str,
    md_answer: &Answer,
    markdown: &str,
    pytest: &Reference,
    errors: &BTreeSet<String>,
) {
    assert_eq!(md_answer.status, Some(pytest.exit), "{}", md_answer.stderr);
    let verdict = status_verdict(pytest.exit, &pytest.counts, errors.len());
    let header = markdown.lines().next().unwrap_or_default();
    assert!(says(header, verdict), "header of {name}: {header}");
    let c = pytest.counts;
    let mut parts = vec![format!(
        "{}{}",
        before_counts().trim_start(),
        run_failed(c.total as usize, c.failed as usize)
    )];
    if c.errors > 0 {
        parts.push(count_alone(headline::Counts {
            errors: c.errors as usize,
            ..headline::Counts::default()
        }));
    }
    if c.skipped > 0 {
        parts.push(count_alone(headline::Counts {
            skipped: c.skipped as usize,
            ..headline::Counts::default()
        }));
    }
    if c.xpassed > 0 {
        parts.push(count_alone(headline::Counts {
            xpassed: c.xpassed as usize,
            ..headline::Counts::default()
        }));
    }
    if !errors.is_empty() {
        parts.push(count_alone(headline::Counts {
            collection_errors: errors.len(),
            ..headline::Counts::default()
        }));
    }
    for part in parts {
        assert!(header.contains(&part), "{name}: `{part}` not in {header}");
    }
    // Its own section, or named in the section of the group it shares (same
    // shape: "Same failure in N more: ids"), by its id or its function
    // ("tests/t.py::test_f (all 30 cases)"); the rest are counted in the
    // groups' "+N more".
    let named = |id: &str| {
        markdown.lines().any(|l| {
            (l.starts_with("### ")
                && pytest_mcp_testkit::tokens::heading_id(l).ends_with(&format!(": {id}")))
                || l.trim_start()
                    .strip_prefix("Same failure in ")
                    .and_then(|l| l.split_once(": "))
                    .is_some_and(|(_, ids)| {
                        ids.split(", ").any(|i| {
                            let i = pytest_mcp_testkit::tokens::heading_id(i);
                            i == id
                                || i.split_once(" (all ").is_some_and(|(f, _)| {
                                    pytest_mcp::pytest_text::parametrized_function(id) == Some(f)
                                })
                        })
                    })
        })
    };
    let more: usize = markdown
        .lines()
        .filter(|l| l.trim_start().starts_with("Same failure in "))
        .filter_map(|l| {
            l.rsplit_once(", +")?
                .1
                .strip_suffix(" more")?
                .parse::<usize>()
                .ok()
        })
        .sum();
    let unnamed: Vec<&String> = pytest
        .outcomes
        .iter()
        .filter(|(id, outcome)| (**outcome == "failed" || **outcome == "error") && !named(id))
        .map(|(id, _)| id)
        .collect();
    assert!(
        unnamed.len() <= more,
        "{name}: no section for {unnamed:?} ({more} counted in groups):\n{markdown}"
    );
    for file in errors {
        assert!(
            markdown.contains(&format!("### COLLECTION ERROR: {file}")),
            "{name}: no section for the collection error in {file}:\n{markdown}"
        );
    }
}
