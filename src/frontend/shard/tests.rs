use super::*;
use crate::plan::{Basis, Shard};

fn env(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

fn spec(index: usize, total: Option<usize>, from: Option<&'static str>) -> Spec {
    Spec { index, total, from }
}

#[test]
fn k_of_n_and_k_alone_are_read() {
    assert_eq!(parse("2/4", env(&[])), Ok(spec(2, Some(4), None)));
    assert_eq!(parse(" 3 ", env(&[])), Ok(spec(3, None, None)));
    assert_eq!(parse("1/1", env(&[])), Ok(spec(1, Some(1), None)));
}

#[test]
fn out_of_range_and_malformed_shards_are_refused_saying_why() {
    let err = |text: &str| parse(text, env(&[])).unwrap_err();
    assert!(err("5/4").contains("no shard 5 of 4"), "{}", err("5/4"));
    assert!(err("0/4").contains("count shards from 1"), "{}", err("0/4"));
    assert!(err("0").contains("count shards from 1"));
    assert!(err("1/0").contains("at least one shard"));
    assert!(err("a/4").contains("K is not a number"));
    assert!(err("2/x").contains("N is not a number"));
    assert!(err("-1/4").contains("K is not a number"));
    assert!(err("").contains("must be K/N"));
}

#[test]
fn auto_reads_each_cis_variables_counting_as_it_counts() {
    let gitlab = env(&[("CI_NODE_INDEX", "1"), ("CI_NODE_TOTAL", "3")]);
    assert_eq!(
        parse("auto", gitlab),
        Ok(spec(1, Some(3), Some("GitLab CI")))
    );
    let circle = env(&[("CIRCLE_NODE_INDEX", "0"), ("CIRCLE_NODE_TOTAL", "3")]);
    assert_eq!(
        parse("auto", circle),
        Ok(spec(1, Some(3), Some("CircleCI")))
    );
    let last = env(&[("CIRCLE_NODE_INDEX", "2"), ("CIRCLE_NODE_TOTAL", "3")]);
    assert_eq!(parse("auto", last), Ok(spec(3, Some(3), Some("CircleCI"))));
    let buildkite = env(&[
        ("BUILDKITE_PARALLEL_JOB", "4"),
        ("BUILDKITE_PARALLEL_JOB_COUNT", "5"),
    ]);
    assert_eq!(
        parse("auto", buildkite),
        Ok(spec(5, Some(5), Some("Buildkite")))
    );
}

#[test]
fn auto_explains_what_it_could_not_read() {
    let err = |vars: &[(&str, &str)]| parse("auto", env(vars)).unwrap_err();
    let none = err(&[]);
    for name in [
        "CI_NODE_INDEX",
        "CIRCLE_NODE_TOTAL",
        "BUILDKITE_PARALLEL_JOB",
    ] {
        assert!(none.contains(name), "{none}");
    }
    let github = err(&[("GITHUB_ACTIONS", "true")]);
    assert!(github.contains("matrix"), "{github}");
    let half = err(&[("CI_NODE_INDEX", "2")]);
    assert!(half.contains("only one of them"), "{half}");
    let wrong = err(&[("CI_NODE_INDEX", "two"), ("CI_NODE_TOTAL", "3")]);
    assert!(wrong.contains("CI_NODE_INDEX=two"), "{wrong}");
    // GitLab counts from 1: index 0 is no job of its.
    let zero = err(&[("CI_NODE_INDEX", "0"), ("CI_NODE_TOTAL", "3")]);
    assert!(zero.contains("count shards from 1"), "{zero}");
    let past = err(&[
        ("BUILDKITE_PARALLEL_JOB", "3"),
        ("BUILDKITE_PARALLEL_JOB_COUNT", "3"),
    ]);
    assert!(past.contains("no shard 4 of 3"), "{past}");
}

fn plan(shards: &[&[&str]]) -> Plan {
    Plan {
        shards: shards
            .iter()
            .enumerate()
            .map(|(k, ids)| Shard {
                index: k + 1,
                seconds: 0.0,
                tests: ids.iter().map(|s| s.to_string()).collect(),
            })
            .collect(),
        basis: Basis {
            runs: 0,
            tests: shards.iter().map(|s| s.len()).sum(),
            estimated: 0,
            shared_setup: 0.0,
        },
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

#[test]
fn the_shards_of_a_plan_that_matches_the_collection_are_its_own() {
    let p = plan(&[&["a.py::x", "a.py::y"], &["b.py::z"], &[]]);
    let collected = ids(&["a.py::x", "a.py::y", "b.py::z"]);
    let first = select(&p, &collected, 1);
    assert_eq!(first.ids, ids(&["a.py::x", "a.py::y"]));
    assert_eq!((first.index, first.total), (1, 3));
    assert!(first.gone.is_empty() && first.added.is_empty());
    assert!(warnings(&first).is_empty());
    assert_eq!(select(&p, &collected, 2).ids, ids(&["b.py::z"]));
    assert!(select(&p, &collected, 3).ids.is_empty());
}

#[test]
fn every_collected_test_goes_to_exactly_one_shard_whatever_changed() {
    let p = plan(&[&["a.py::x", "b.py::y"], &["a.py::w", "a.py::v", "c.py::u"]]);
    // a.py::v is gone; a.py::new (module a: shard 2 holds 2 of its tests,
    // shard 1 one) and d.py::new (a module the plan does not know) are new.
    let collected = ids(&[
        "a.py::x",
        "a.py::w",
        "a.py::new",
        "b.py::y",
        "c.py::u",
        "d.py::new",
    ]);
    let shards: Vec<Selected> = (1..=2).map(|k| select(&p, &collected, k)).collect();
    let mut all: Vec<String> = shards.iter().flat_map(|s| s.ids.clone()).collect();
    all.sort();
    let mut expected = collected.clone();
    expected.sort();
    assert_eq!(all, expected);
    assert!(shards[1].ids.contains(&"a.py::new".to_string()));
    for s in &shards {
        assert_eq!(s.gone, ids(&["a.py::v"]));
        assert_eq!(s.added.len(), 2);
        // Every shard sends each new test to the same place.
        assert_eq!(s.added, shards[0].added);
    }
    let lines = warnings(&shards[0]);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].contains("1 test of the plan is not collected now"));
    assert!(lines[0].contains("a.py::v"));
    assert!(lines[1].contains("a.py::new -> shard 2"), "{}", lines[1]);
}

#[test]
fn a_new_modules_tests_stay_together_and_the_hash_is_fixed() {
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    let p = plan(&[&["a.py::x"], &["b.py::y"], &["c.py::z"]]);
    let collected = ids(&["a.py::x", "b.py::y", "c.py::z", "new.py::p", "new.py::q"]);
    let homes: Vec<usize> = select(&p, &collected, 1)
        .added
        .iter()
        .map(|(_, k)| *k)
        .collect();
    assert_eq!(homes.len(), 2);
    assert_eq!(homes[0], homes[1]);
}

#[test]
fn the_note_names_the_shard_and_its_new_tests() {
    let p = plan(&[&["a.py::x"], &["b.py::y"]]);
    let s = select(&p, &ids(&["a.py::x", "a.py::n", "b.py::y"]), 1);
    assert_eq!(
        note(&s, "plan.json"),
        "Shard 1 of 2 (plan.json): 2 tests, 1 of them new since the plan"
    );
}
