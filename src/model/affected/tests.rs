use super::*;

#[test]
fn the_line_says_what_ran_and_what_was_left_out() {
    let narrowed = Affected {
        left_out: 10,
        all_ran: None,
    };
    assert_eq!(
        narrowed.phrase(4),
        "Affected only (pytest-testmon): 4 ran, 10 unaffected left out."
    );
    let first = Affected {
        left_out: 0,
        all_ran: Some(AllRan::FirstRun),
    };
    assert!(
        first
            .phrase(14)
            .contains("first run, so all 14 ran while it records")
    );
    let packages = Affected {
        left_out: 0,
        all_ran: Some(AllRan::PackagesChanged),
    };
    assert!(packages.phrase(1).contains("so all 1 ran"));
}
