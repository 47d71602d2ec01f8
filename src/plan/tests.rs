use std::num::NonZeroUsize;

use proptest::prelude::*;

use super::*;

fn test(id: &str, timing: Option<Timing>) -> Test {
    Test {
        id: id.to_string(),
        timing,
    }
}

fn planned(tests: &[Test], shards: usize) -> Plan {
    plan(Input {
        tests,
        shards: NonZeroUsize::new(shards).expect("shards > 0"),
        runs: 1,
    })
}

/// The shard (1-based) each id went to.
fn shard_of(plan: &Plan, id: &str) -> usize {
    plan.shards
        .iter()
        .find(|s| s.tests.iter().any(|t| t == id))
        .map(|s| s.index)
        .unwrap_or_else(|| panic!("{id} not planned: {plan:?}"))
}

/// A module of `n` tests of `call` seconds whose first test pays `setup`
/// seconds of module fixture (and 0.001 s of its own, as the others).
fn module(name: &str, n: usize, call: f64, setup: f64) -> Vec<Test> {
    (0..n)
        .map(|i| {
            let paid = if i == 0 { setup } else { 0.0 };
            test(
                &format!("{name}::test_{i}"),
                Some(Timing::phased(0.001 + paid, call, 0.001)),
            )
        })
        .collect()
}

#[test]
fn the_same_input_gives_the_same_plan_byte_for_byte() {
    let mut tests = module("tests/a/test_x.py", 30, 0.2, 3.0);
    tests.extend(module("tests/a/test_y.py", 7, 1.3, 0.0));
    tests.extend(module("tests/b/test_z.py", 50, 0.05, 0.5));
    tests.push(test("tests/b/test_new.py::test_it", None));
    let first = serde_json::to_string(&planned(&tests, 4)).expect("json");
    for _ in 0..5 {
        assert_eq!(
            serde_json::to_string(&planned(&tests, 4)).expect("json"),
            first
        );
    }
}

#[test]
fn more_shards_than_tests_leaves_the_last_shards_empty() {
    let tests = module("test_a.py", 3, 1.0, 0.0);
    let plan = planned(&tests, 5);
    assert_eq!(plan.shards.len(), 5);
    let sizes: Vec<usize> = plan.shards.iter().map(|s| s.tests.len()).collect();
    assert_eq!(sizes.iter().sum::<usize>(), 3);
    assert_eq!(sizes.iter().filter(|&&n| n == 1).count(), 3, "{plan:?}");
    let indexes: Vec<usize> = plan.shards.iter().map(|s| s.index).collect();
    assert_eq!(indexes, [1, 2, 3, 4, 5]);
    assert!(
        plan.shards
            .iter()
            .filter(|s| s.tests.is_empty())
            .all(|s| s.seconds == 0.0)
    );
}

#[test]
fn no_tests_gives_empty_shards() {
    let plan = planned(&[], 2);
    assert_eq!(plan.shards.len(), 2);
    assert!(plan.shards.iter().all(|s| s.tests.is_empty()));
    assert_eq!(plan.basis.tests, 0);
}

#[test]
fn a_test_without_a_duration_gets_its_modules_mean_else_the_suites() {
    let mut tests = module("test_a.py", 4, 2.0, 0.0);
    tests.push(test("test_a.py::test_new", None));
    tests.extend(module("test_b.py", 4, 0.5, 0.0));
    tests.push(test("test_c.py::test_new", None));
    let suite = scopes::Suite::read(&tests);
    assert_eq!(suite.estimated, 2);
    let own = |id: &str| suite.own[tests.iter().position(|t| t.id == id).expect("id")];
    assert!((own("test_a.py::test_new") - 2.002).abs() < 1e-9);
    assert!((own("test_c.py::test_new") - 1.252).abs() < 1e-9);
    let plan = planned(&tests, 2);
    assert_eq!(plan.basis.estimated, 2);
    assert_eq!(plan.basis.tests, 10);
}

#[test]
fn nothing_known_balances_the_number_of_tests() {
    let tests: Vec<Test> = (0..9)
        .map(|i| test(&format!("test_{}.py::test_it", i % 3), None))
        .collect();
    let plan = planned(&tests, 3);
    assert!(plan.shards.iter().all(|s| s.tests.len() == 3), "{plan:?}");
    assert_eq!(plan.basis.estimated, 9);
}

#[test]
fn the_first_tests_extra_setup_is_the_modules_shared_cost() {
    let tests = module("tests/test_db.py", 10, 0.1, 5.0);
    let suite = scopes::Suite::read(&tests);
    let module = suite.scope_of[0] as usize;
    assert!((suite.scopes[module].cost - 5.0).abs() < 1e-9, "{suite:?}");
    assert!((suite.own[0] - 0.102).abs() < 1e-9);
    assert!((suite.shared_setup() - 5.0).abs() < 1e-9);
}

#[test]
fn a_class_setup_is_the_classs_and_the_last_tests_teardown_the_modules() {
    let mut tests = vec![test(
        "m.py::test_plain",
        Some(Timing::phased(0.001, 0.1, 0.001)),
    )];
    for i in 0..4 {
        let setup = if i == 0 { 2.0 } else { 0.001 };
        tests.push(test(
            &format!("m.py::TestC::test_{i}"),
            Some(Timing::phased(setup, 0.1, 0.001)),
        ));
    }
    tests.push(test(
        "m.py::test_last",
        Some(Timing::phased(0.001, 0.1, 1.5)),
    ));
    let suite = scopes::Suite::read(&tests);
    let class = suite.scope_of[1] as usize;
    let module = suite.scope_of[0] as usize;
    assert!((suite.scopes[class].cost - 1.999).abs() < 1e-9, "{suite:?}");
    assert!(
        (suite.scopes[module].cost - 1.499).abs() < 1e-9,
        "{suite:?}"
    );
}

#[test]
fn a_first_module_like_its_siblings_leaves_its_package_nothing() {
    let mut tests = Vec::new();
    for m in 0..5 {
        tests.extend(module(&format!("pkg/test_{m}.py"), 3, 0.1, 1.0));
    }
    let suite = scopes::Suite::read(&tests);
    let package = suite.scopes[suite.scope_of[0] as usize]
        .parent
        .expect("a package") as usize;
    assert_eq!(suite.scopes[package].cost, 0.0, "{suite:?}");
    assert!((suite.shared_setup() - 5.0).abs() < 1e-9);
}

#[test]
fn a_package_is_credited_only_what_none_of_its_modules_explains() {
    // The first module's 3 s is no more than its sibling's 5 s: its own.
    let mut tests = module("pkg/test_a.py", 3, 0.1, 3.0);
    tests.extend(module("pkg/test_b.py", 3, 0.1, 5.0));
    tests.extend(module("pkg/test_c.py", 3, 0.1, 1.0));
    let suite = scopes::Suite::read(&tests);
    let first = suite.scope_of[0] as usize;
    let package = suite.scopes[first].parent.expect("a package") as usize;
    assert_eq!(suite.scopes[package].cost, 0.0, "{suite:?}");
    assert!((suite.scopes[first].cost - 3.0).abs() < 1e-9, "{suite:?}");
    // 9 s where no module pays more than 5: the 4 s beyond is the package's.
    let mut tests = module("pkg/test_a.py", 3, 0.1, 9.0);
    tests.extend(module("pkg/test_b.py", 3, 0.1, 5.0));
    let suite = scopes::Suite::read(&tests);
    let package = suite.scopes[suite.scope_of[0] as usize]
        .parent
        .expect("a package") as usize;
    assert!((suite.scopes[package].cost - 4.0).abs() < 1e-9, "{suite:?}");
}

#[test]
fn a_costly_module_is_kept_together() {
    // 20 s of fixture and 10 x 0.5 s of tests: on 2 shards, splitting it
    // would pay the fixture twice.
    let mut tests = module("test_db.py", 10, 0.5, 20.0);
    tests.extend(module("test_fast.py", 40, 0.5, 0.0));
    let plan = planned(&tests, 2);
    let shard = shard_of(&plan, "test_db.py::test_0");
    for i in 0..10 {
        assert_eq!(shard_of(&plan, &format!("test_db.py::test_{i}")), shard);
    }
    let seconds: Vec<f64> = plan.shards.iter().map(|s| s.seconds).collect();
    assert!(seconds.iter().all(|&s| s < 26.0), "{seconds:?}");
}

#[test]
fn a_heavy_module_with_a_cheap_fixture_is_split() {
    // One module holds nearly all the time; its fixture is cheap, so each
    // shard pays it and takes half the tests.
    let tests = module("test_big.py", 20, 1.0, 0.1);
    let plan = planned(&tests, 2);
    let sizes: Vec<usize> = plan.shards.iter().map(|s| s.tests.len()).collect();
    assert_eq!(sizes, [10, 10], "{plan:?}");
    for shard in &plan.shards {
        assert!((shard.seconds - 10.12).abs() < 1e-9, "{plan:?}");
    }
}

/// The tests of `tests/projects/sharding_loop` as pytest-json-report
/// records one run: the store module's fixture (2 s) in its first test's
/// setup, the render class's `setup_class` (1.5 s) in its first test's.
fn sharding_loop() -> Vec<Test> {
    let mut tests = Vec::new();
    for m in ["a", "b", "c"] {
        tests.extend(module(&format!("tests/test_fast_{m}.py"), 23, 0.02, 0.0));
    }
    tests.extend(module("tests/test_render.py::TestRender", 8, 0.1, 1.5));
    for (name, call) in [
        ("import", 2.0),
        ("sync", 1.5),
        ("backfill", 1.0),
        ("index", 0.8),
    ] {
        tests.push(test(
            &format!("tests/test_slow.py::test_{name}"),
            Some(Timing::phased(0.001, call, 0.001)),
        ));
    }
    tests.extend(module("tests/test_store.py", 12, 0.1, 2.0));
    tests
}

/// How many shards run any test whose id starts with `prefix`.
fn spread(plan: &Plan, prefix: &str) -> usize {
    plan.shards
        .iter()
        .filter(|s| s.tests.iter().any(|t| t.starts_with(prefix)))
        .count()
}

fn slowest(plan: &Plan) -> f64 {
    plan.shards.iter().map(|s| s.seconds).fold(0.0, f64::max)
}

#[test]
fn the_sharding_loop_keeps_its_module_and_its_class_whole() {
    let tests = sharding_loop();
    let plan = planned(&tests, 3);
    assert_eq!(spread(&plan, "tests/test_store.py::"), 1, "{plan:?}");
    assert_eq!(spread(&plan, "tests/test_render.py::"), 1, "{plan:?}");
    // 12.4 s in all: 4.12 s a shard at best.
    assert!(slowest(&plan) < 4.2, "{plan:?}");
}

#[test]
fn a_module_far_heavier_than_a_shard_is_split_setup_and_all() {
    // 2 s of fixture and 40 x 0.5 s of tests: whole, one shard takes 22 s;
    // split, each pays the fixture and takes about 12.5 s.
    let mut tests = module("test_big.py", 40, 0.5, 2.0);
    tests.extend(module("test_small.py", 10, 0.1, 0.0));
    let plan = planned(&tests, 2);
    assert_eq!(spread(&plan, "test_big.py::"), 2, "{plan:?}");
    assert!(slowest(&plan) < 13.0, "{plan:?}");
}

#[test]
fn a_split_that_gains_less_than_the_setup_it_repeats_is_not_made() {
    // 2 s of fixture and 12 x 0.25 s of tests (5.0 s), and 1 s of other
    // tests, on 2 shards. Split, the module would pay its fixture twice
    // for a slowest shard of 4.0 s instead of 5.0: 1 s gained, 2 s repeated.
    let mut tests = module("test_db.py", 12, 0.25, 2.0);
    tests.extend(module("test_fast.py", 10, 0.1, 0.0));
    let plan = planned(&tests, 2);
    assert_eq!(spread(&plan, "test_db.py::"), 1, "{plan:?}");
    assert!((slowest(&plan) - 5.024).abs() < 1e-9, "{plan:?}");
}

#[test]
fn shards_keep_collection_order() {
    let mut tests = module("test_b.py", 9, 0.3, 0.0);
    tests.extend(module("test_a.py", 9, 0.7, 0.0));
    let plan = planned(&tests, 3);
    for shard in &plan.shards {
        let at: Vec<usize> = shard
            .tests
            .iter()
            .map(|id| tests.iter().position(|t| &t.id == id).expect("planned id"))
            .collect();
        assert!(at.windows(2).all(|w| w[0] < w[1]), "{shard:?}");
    }
}

#[test]
fn node_ids_are_read_into_scopes_without_their_parameters() {
    let (ends, module_end) = scopes_of("a/b/test_x.py::TestY::TestZ::test_f[p/q::r[s]]");
    assert_eq!(module_end, "a/b/test_x.py".len());
    assert_eq!(
        ends,
        [
            "a/",
            "a/b/",
            "a/b/test_x.py",
            "a/b/test_x.py::TestY",
            "a/b/test_x.py::TestY::TestZ"
        ]
    );
    assert_eq!(scopes_of("test_x.py::test_f").0, ["test_x.py"]);
    assert_eq!(scopes_of("README.md").0, ["README.md"]);
}

fn scopes_of(id: &str) -> (Vec<&str>, usize) {
    let (ends, module_end) = scopes::scope_ends(id);
    (ends.into_iter().map(|e| &id[..e]).collect(), module_end)
}

#[test]
fn timings_of_several_runs_are_their_median_phase_by_phase() {
    let runs = [
        Timing::phased(1.0, 2.0, 0.0),
        Timing::phased(3.0, 1.0, 0.0),
        Timing::phased(2.0, 9.0, 1.0),
    ];
    assert_eq!(Timing::median(&runs), Some(Timing::phased(2.0, 2.0, 0.0)));
    let mixed = [Timing::phased(1.0, 1.0, 0.0), Timing::total(4.0)];
    assert_eq!(Timing::median(&mixed), Some(Timing::total(3.0)));
    assert_eq!(Timing::median(&[]), None);
}

#[test]
fn a_duration_no_run_can_have_is_no_duration() {
    let tests = [
        test("t.py::a", Some(Timing::total(f64::NAN))),
        test("t.py::b", Some(Timing::phased(-1.0, 1.0, 0.0))),
        test("t.py::c", Some(Timing::total(2.0))),
    ];
    let plan = planned(&tests, 2);
    assert_eq!(plan.basis.estimated, 2);
    assert!(plan.shards.iter().all(|s| s.seconds.is_finite()));
}

/// Random suites: a few packages, modules and classes, timings with and
/// without phases, some missing, module fixtures on first tests.
fn suites() -> impl Strategy<Value = (Vec<Test>, usize)> {
    let one = (0..3u8, 0..4u8, 0..3u8, 0.0..3.0f64, 0.0..2.0f64, 0..5u8);
    (proptest::collection::vec(one, 0..60), 1..9usize).prop_map(|(raw, shards)| {
        let mut tests: Vec<Test> = raw
            .into_iter()
            .enumerate()
            .map(|(i, (pkg, module, class, call, setup, kind))| {
                let class = if class == 0 {
                    String::new()
                } else {
                    format!("::TestC{class}")
                };
                let timing = match kind {
                    0 => None,
                    1 => Some(Timing::total(call + setup)),
                    _ => Some(Timing::phased(setup, call, setup / 4.0)),
                };
                test(
                    &format!("p{pkg}/test_m{module}.py{class}::test_{i}"),
                    timing,
                )
            })
            .collect();
        // Collection order keeps a scope's tests together.
        tests.sort_by(|a, b| {
            a.id.rsplit_once("::")
                .map(|p| p.0)
                .cmp(&b.id.rsplit_once("::").map(|p| p.0))
        });
        (tests, shards)
    })
}

proptest! {
    #[test]
    fn every_test_is_planned_once_and_never_worse_than_plain_dealing((tests, shards) in suites()) {
        let plan = planned(&tests, shards);
        prop_assert_eq!(plan.shards.len(), shards);
        let mut seen: Vec<&str> = plan.shards.iter().flat_map(|s| s.tests.iter().map(String::as_str)).collect();
        seen.sort_unstable();
        let mut ids: Vec<&str> = tests.iter().map(|t| t.id.as_str()).collect();
        ids.sort_unstable();
        prop_assert_eq!(seen, ids);

        // By the rule: the slowest shard plus the setup paid again.
        let suite = scopes::Suite::read(&tests);
        let judged = |shard_of: &[usize]| {
            let loads = suite.loads(shard_of, shards);
            let slowest = loads.iter().copied().fold(0.0, f64::max);
            slowest + loads.iter().sum::<f64>() - suite.total()
        };
        let ours = judged(&assign::assign(&suite, shards));
        let baseline = judged(&assign::plain(&suite, shards));
        prop_assert!(ours <= baseline + 1e-6, "{} > {}", ours, baseline);
        // Never below what the largest test alone or a fair share needs.
        let planned_slowest = plan.shards.iter().map(|s| s.seconds).fold(0.0, f64::max);
        let bound = suite.total() / shards as f64;
        prop_assert!(planned_slowest + 1e-3 >= bound, "{} < {}", planned_slowest, bound);
    }
}
