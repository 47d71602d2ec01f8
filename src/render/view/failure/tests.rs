use super::MAX_LINE_CHARS;
use super::lines::{clip, lines_of};

#[test]
fn lines_are_split_as_str_lines_splits_them() {
    // Every string of up to six characters from an alphabet of line
    // ends, a space and a multi-byte character.
    let alphabet = ['a', '\r', '\n', ' ', 'é'];
    let mut texts = vec![String::new()];
    let mut longest = vec![String::new()];
    for _ in 0..6 {
        longest = longest
            .iter()
            .flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}")))
            .collect();
        texts.extend(longest.iter().cloned());
    }
    for text in &texts {
        assert_eq!(lines_of(text), text.lines().collect::<Vec<_>>(), "{text:?}");
    }
}

#[test]
fn long_lines_are_clipped() {
    let long = "x".repeat(MAX_LINE_CHARS + 10);
    assert!(clip(&long).ends_with("… (10 more chars)"));
    assert_eq!(clip("short"), "short");
}
