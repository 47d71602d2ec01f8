use super::*;

#[test]
fn a_split_gives_back_each_phase_within_a_share() {
    let split = PhaseSplit::of(2.5, 0.01, 0.125).expect("a split");
    let t = split.times(2.635);
    assert!((t.setup - 2.5).abs() < 2.635 / 65_534.0, "{t:?}");
    assert!((t.call - 0.01).abs() < 2.0 * 2.635 / 65_534.0, "{t:?}");
    assert!((t.teardown - 0.125).abs() < 2.635 / 65_534.0, "{t:?}");
}

#[test]
fn the_extremes_stay_whole() {
    let all_setup = PhaseSplit::of(1.0, 0.0, 0.0).expect("split").times(1.0);
    assert_eq!(
        (all_setup.setup, all_setup.call, all_setup.teardown),
        (1.0, 0.0, 0.0)
    );
    let all_teardown = PhaseSplit::of(0.0, 0.0, 3.0).expect("split").times(3.0);
    assert_eq!(all_teardown.teardown, 3.0);
    assert_eq!(all_teardown.call, 0.0);
    let halves = PhaseSplit::of(1.0, 0.0, 1.0).expect("split").times(2.0);
    assert!(
        halves.call >= 0.0 && halves.setup + halves.teardown <= 2.0,
        "{halves:?}"
    );
}

#[test]
fn no_time_or_a_time_that_is_not_one_is_no_split() {
    assert_eq!(PhaseSplit::of(0.0, 0.0, 0.0), None);
    assert_eq!(PhaseSplit::of(-1.0, 2.0, 0.0), None);
    assert_eq!(PhaseSplit::of(f64::NAN, 2.0, 0.0), None);
    assert_eq!(PhaseSplit::of(f64::INFINITY, 2.0, 0.0), None);
}

#[test]
fn an_optional_split_costs_four_bytes() {
    assert_eq!(std::mem::size_of::<Option<PhaseSplit>>(), 4);
}
