use super::*;

#[test]
fn the_template_has_each_placeholder_once() {
    for name in ["title", "csp", "style", "script", "body"] {
        let placeholder = format!("{{{{{name}}}}}");
        assert_eq!(TEMPLATE.matches(&placeholder).count(), 1, "{placeholder}");
    }
    // The hash is of exactly what stands between the tags.
    let page = fill("t", "");
    assert!(page.contains(&format!("<script>{SCRIPT}</script>")));
    assert!(page.contains(&format!("<style>{STYLE}</style>")));
}

#[test]
fn hashes_are_csp_sources() {
    // echo -n abc | openssl dgst -sha256 -binary | base64
    assert_eq!(
        source_hash("abc"),
        "sha256-ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0="
    );
}

#[test]
fn durations_read_as_numbers() {
    assert_eq!(secs(0.0123), "0.012s");
    assert_eq!(secs(12.345), "12.35s");
    assert_eq!(secs(1234.56), "1234.6s");
}
