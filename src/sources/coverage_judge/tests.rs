use super::*;

const PRICING: &str = "\
def total(items):
    # empty orders
    if not items:
        return 0.0
    return round(
        sum(items),
        2,
    )


def debug(x):  # pragma: no cover
    print(x)
";

fn change(files: &[(&str, &[u32])]) -> ChangedLines {
    let mut changed = ChangedLines::default();
    for (path, lines) in files {
        changed.files.insert(path.to_string(), lines.to_vec());
    }
    changed
}

fn measured(name: &str, statements: &[u32], executed: &[u32]) -> Measured {
    let lines = Lines {
        statements: statements.iter().copied().collect(),
        executed: executed.iter().copied().collect(),
    };
    Measured {
        files: BTreeMap::from([(name.to_string(), lines)]),
        sources: Vec::new(),
    }
}

fn judged(changed: &ChangedLines, texts: &[(&str, &str)], m: &Measured) -> ChangeCoverage {
    let texts: BTreeMap<String, String> = texts
        .iter()
        .map(|(p, t)| (p.to_string(), t.to_string()))
        .collect();
    let change = Change {
        base: "HEAD",
        changed,
        texts: &texts,
        root: "/work/shop",
    };
    judge(&change, m)
}

#[test]
fn a_line_in_the_middle_of_a_statement_is_judged_by_its_first_line() {
    let changed = change(&[("shop/pricing.py", &[2, 4, 6, 7])]);
    let m = measured(
        "/ci/checkout/shop/pricing.py",
        &[1, 3, 4, 5, 11],
        &[1, 3, 5],
    );
    let c = judged(&changed, &[("shop/pricing.py", PRICING)], &m);
    let f = &c.files[0];
    assert_eq!(
        (f.changed.as_slice(), f.covered.as_slice()),
        (&[4, 6, 7][..], &[6, 7][..])
    );
    assert_eq!(f.gaps.len(), 1);
    assert_eq!(
        (
            f.gaps[0].start,
            f.gaps[0].end,
            f.gaps[0].function.as_deref()
        ),
        (4, 4, Some("total"))
    );
    assert_eq!(f.gaps[0].source, ["        return 0.0"]);
    assert_eq!((c.changed_lines, c.covered_lines, c.note), (3, 2, None));
}

#[test]
fn a_file_no_report_names_ran_nowhere_and_its_excluded_lines_do_not_count() {
    let changed = change(&[("shop/pricing.py", &[1, 2, 3, 4, 5, 6, 7, 8, 11, 12])]);
    let c = judged(
        &changed,
        &[("shop/pricing.py", PRICING)],
        &Measured::default(),
    );
    let f = &c.files[0];
    assert_eq!(
        f.changed,
        [1, 3, 4, 5, 6, 7, 8],
        "the closing bracket is code of its statement"
    );
    assert!(f.covered.is_empty());
    assert_eq!(
        f.gaps.iter().map(|g| (g.start, g.end)).collect::<Vec<_>>(),
        [(1, 8)]
    );
    assert!(
        c.note
            .as_deref()
            .is_some_and(|n| n.starts_with("1 changed file is in no coverage report")),
        "{c:?}"
    );
}

#[test]
fn tests_other_files_and_unreadable_files_are_said_or_left_out() {
    let changed = change(&[
        ("README.md", &[1]),
        ("tests/test_pricing.py", &[1]),
        ("shop/conftest.py", &[1]),
        ("shop/gone.py", &[1]),
    ]);
    let c = judged(&changed, &[], &Measured::default());
    assert!(c.files.is_empty());
    assert_eq!(
        c.note.as_deref(),
        Some("changed files that could not be read: shop/gone.py")
    );
}

#[test]
fn names_under_the_root_win_over_names_that_only_end_alike() {
    let mut m = measured("/work/shop/shop/pricing.py", &[1, 3], &[1, 3]);
    m.add(measured("/elsewhere/shop/pricing.py", &[1, 3], &[]));
    let changed = change(&[("shop/pricing.py", &[3])]);
    let c = judged(&changed, &[("shop/pricing.py", PRICING)], &m);
    assert_eq!(c.covered_lines, 1);
}
