use super::epoch_seconds;

#[test]
fn writers_timestamps_are_read() {
    let cases = [
        ("2024-05-01T12:00:00.5+02:00", Some(1_714_557_600.5)),
        ("2024-05-01T10:00:00Z", Some(1_714_557_600.0)),
        ("2024-05-01T10:00:00", Some(1_714_557_600.0)),
        (" 2024-05-01 10:00:00.250 ", Some(1_714_557_600.25)),
        ("yesterday", None),
        ("1969-12-31T23:59:59", None),
        ("", None),
    ];
    for (text, want) in cases {
        assert_eq!(epoch_seconds(text), want, "{text:?}");
    }
}
