use super::*;

#[test]
fn colour_codes_and_controls_go_the_words_stay() {
    assert_eq!(clean("\x1b[31mred\x1b[0m plain"), "red plain");
    assert_eq!(
        clean("\x1b[31mAssertionError: \x1b[1mexpected 3\x1b[0m"),
        "AssertionError: expected 3"
    );
    // 256 colours, private modes, cursor moves, erase line.
    assert_eq!(clean("\x1b[38;5;196mx\x1b[?25l\x1b[2K\x1b[1;1Hy"), "xy");
    // OSC 8 hyperlink (ST and BEL terminated) and a window title.
    assert_eq!(
        clean("\x1b]8;;http://x\x1b\\link\x1b]8;;\x07 \x1b]0;title\x07done"),
        "link done"
    );
    // Charset selection, keypad mode, a lone ESC at the end.
    assert_eq!(clean("\x1b(Ba\x1b=b\x1b"), "ab");
    // C1 forms: CSI, OSC with ST, and a lone C1 control.
    assert_eq!(clean("\u{9b}31mred\u{9d}0;t\u{9c}!\u{85}"), "red!");
    // BEL, backspace, NUL, DEL go; tabs and line breaks stay.
    assert_eq!(clean("a\x07b\x08c\x00d\x7fe\tf\ng"), "abcde\tf\ng");
    // CRLF is LF; a lone CR is a line break.
    assert_eq!(clean("a\r\nb\rc\r"), "a\nb\nc\n");
}

#[test]
fn broken_sequences_keep_the_text() {
    // A CSI cut by a line break, an OSC never terminated on its line.
    assert_eq!(clean("\x1b[31\nnext"), "\nnext");
    assert_eq!(clean("\x1b]8;;http://x\nnext line"), "\nnext line");
    // An OSC interrupted by another escape.
    assert_eq!(clean("\x1b]0;t\x1b[1mbold"), "bold");
    // Non-ASCII text next to escapes, and C2 that is not C1.
    assert_eq!(clean("é\x1b[1m° ±\x1b[0m€"), "é° ±€");
    assert_eq!(clean("\x1b[é"), "é");
}

#[test]
fn clean_text_is_borrowed() {
    for s in ["plain", "tab\tand\nlines", "µs ± 1 °C", ""] {
        assert!(matches!(clean(s), Cow::Borrowed(_)), "{s:?}");
    }
    let long = "°".repeat(70);
    assert!(matches!(clean(&long), Cow::Borrowed(_)));
}

#[test]
fn controls_are_found_wherever_they_are_in_long_text() {
    for at in 0..100 {
        let head = "a".repeat(at);
        let text = format!("{head}\x1b[1m{}\u{85}°", "b".repeat(50));
        assert_eq!(
            clean(&text),
            format!("{head}{}°", "b".repeat(50)),
            "at {at}"
        );
        let c1 = format!("{}{head}\u{9b}0m.", "±".repeat(20));
        assert_eq!(clean(&c1), format!("{}{head}.", "±".repeat(20)), "at {at}");
    }
}

#[test]
fn pytests_xml_escapes_are_read_as_the_controls_they_stand_for() {
    assert_eq!(
        clean_xml_text("E  AssertionError: #x1B[31mAssertionError: #x1B[1mexpected 3#x1B[0m"),
        "E  AssertionError: AssertionError: expected 3"
    );
    assert_eq!(
        clean_xml_text("bad #x07value #x1B]8;;u#x1B\\link"),
        "bad value link"
    );
    // Not pytest's escapes: lowercase, printable, too short.
    assert_eq!(clean_xml_text("#x1b #x41 #x1 #xZZ"), "#x1b #x41 #x1 #xZZ");
    assert!(matches!(
        clean_xml_text("color: #x7F; #fff"),
        Cow::Borrowed(_)
    ));
}

#[test]
fn one_line_escapes_breaks() {
    assert_eq!(one_line("a\n### FAILED: x"), "a\\n### FAILED: x");
    assert_eq!(one_line("plain"), "plain");
}

#[test]
fn blocks_lose_the_blank_lines_around_them_and_their_shared_indent() {
    assert_eq!(trim_block(""), "");
    assert_eq!(
        trim_block("\n   \n    a\n      b\n    c  \n  \n"),
        "a\n  b\nc"
    );
    // No shared indentation: the block as it is, line ends and all.
    assert_eq!(trim_block("\n\nx\r\n  y\n"), "x\r\n  y");
    assert_eq!(trim_block("  first\n\n  second"), "first\n\nsecond");
    assert_eq!(last_line("a\n b \n\n"), Some("b"));
    assert_eq!(last_line(" \n"), None);
}

#[test]
fn thousands_are_separated() {
    let cases = [(0, "0"), (999, "999"), (1000, "1,000"), (5000, "5,000")];
    for (n, text) in cases {
        assert_eq!(thousands(n), text);
    }
    assert_eq!(thousands(1_234_567), "1,234,567");
}
