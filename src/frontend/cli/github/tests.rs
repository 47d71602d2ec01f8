use super::*;

#[test]
fn appends_within_the_limit_after_a_blank_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("summary.md");
    std::fs::write(&path, "# Earlier step\n").unwrap();
    let mut offered = 0;
    append_within(&path, 1_000, |room| {
        offered = room;
        "x".repeat(room)
    })
    .unwrap();
    assert_eq!(offered, 1_000 - 15 - 1);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("# Earlier step\n\nxxx"), "{text}");
    assert_eq!(text.len(), 1_000);
    // Full: nothing more is written.
    assert!(append_within(&path, 1_000, |_| "y".into()).is_err());
    assert_eq!(std::fs::read_to_string(&path).unwrap(), text);
    // A render that ignores its room is refused, not written.
    let other = dir.path().join("new.md");
    assert!(append_within(&other, 1_000, |room| "z".repeat(room + 1)).is_err());
    append_within(&other, 1_000, |_| "## Report\n".into()).unwrap();
    assert_eq!(std::fs::read_to_string(&other).unwrap(), "## Report\n");
}

#[test]
fn cut_to_keeps_whole_lines_and_characters() {
    let text = "é line one\nsecond line é\nthird\n".repeat(100);
    let cut = cut_to(text.clone(), 200);
    assert!(cut.len() <= 200, "{}", cut.len());
    assert!(cut.ends_with("> Cut to fit GitHub's limit on a job summary\n"));
    assert!(cut.starts_with("é line one\nsecond line é\n"));
    assert_eq!(cut_to("short".into(), 200), "short");
}
