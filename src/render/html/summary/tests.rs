use super::*;

#[test]
fn the_bar_is_proportional_and_a_rare_outcome_stays_visible() {
    let c = Counts {
        total: 100_000,
        passed: 99_999,
        failed: 1,
        ..Counts::default()
    };
    let mut out = String::new();
    bar(&mut out, &c);
    assert!(
        out.contains("<rect class=p x=\"0.0\" width=\"996.0\""),
        "{out}"
    );
    assert!(
        out.contains("<rect class=f x=\"996.0\" width=\"4.0\""),
        "{out}"
    );
    let c = Counts {
        total: 4,
        passed: 1,
        failed: 1,
        errors: 1,
        skipped: 1,
        ..Counts::default()
    };
    let mut out = String::new();
    bar(&mut out, &c);
    for (class, x) in [("p", "0.0"), ("f", "250.0"), ("e", "500.0"), ("s", "750.0")] {
        let rect = format!("<rect class={class} x=\"{x}\" width=\"250.0\"");
        assert!(out.contains(&rect), "{out}");
    }
}
