use super::*;

const SHOP: &str = r#""""Prices for the shop."""

TAX_RATE = 0.2


def total(items, catalogue):
    """Sum the prices of items, with tax."""
    # An empty order costs nothing.
    if not items:
        return 0.0
    return round(
        sum(items),  # a comment in the call
        # a comment line in the call
        2,
    )


class Stock:
    @property
    @cached
    def levels(self):
        text = """one
two"""
        return text \
            + "x"

    async def hold(self):
        pass
# a comment at the left margin does not end the class
    def release(self):
        raise NotImplementedError
"#;

#[test]
fn a_multi_line_statement_is_judged_by_its_first_line_and_comments_hold_no_code() {
    let (source, _) = Source::read(SHOP);
    assert_eq!(source.first_line(12), 11);
    assert_eq!(source.first_line(14), 11);
    assert!(source.is_code(12) && !source.is_code(13) && source.is_code(14));
    assert!(!source.is_code(8) && !source.is_code(2));
    // A triple-quoted string over two lines, and a backslash continuation.
    assert_eq!((source.first_line(23), source.first_line(25)), (22, 24));
    assert!(source.is_code(23) && source.is_code(25));
    assert_eq!(source.first_line(9), 9);
}

#[test]
fn scopes_hold_their_decorators_and_methods_are_named_by_their_class() {
    let (source, _) = Source::read(SHOP);
    let name = |n| source.scope_of(n).map(|s| s.name.as_str());
    assert_eq!(name(3), None);
    assert_eq!(name(7), Some("total"));
    assert_eq!(name(15), Some("total"));
    assert_eq!(
        name(19),
        Some("Stock.levels"),
        "a decorator belongs to its function"
    );
    assert_eq!(name(25), Some("Stock.levels"));
    assert_eq!(name(28), Some("Stock.hold"));
    assert_eq!(name(31), Some("Stock.release"));
    assert_eq!(name(18), Some("Stock"));
    let levels = source.scopes.iter().find(|s| s.name == "Stock.levels");
    assert_eq!(levels.map(|s| (s.first, s.last)), Some((19, 25)));
}

#[test]
fn docstrings_are_logical_lines_of_strings_alone() {
    let (_, logical) = Source::read(SHOP);
    let strings: Vec<u32> = logical
        .iter()
        .filter(|l| l.only_strings)
        .map(|l| l.first)
        .collect();
    assert_eq!(strings, [1, 7]);
    let fstring = Source::read("x = f'a{b}'\nr'''raw\n'''\n").1;
    assert_eq!(
        fstring.iter().map(|l| l.only_strings).collect::<Vec<_>>(),
        [false, true]
    );
}

#[test]
fn quotes_inside_strings_and_comments_do_not_open_anything() {
    let text = "a = '(' # )\nb = \"it's\"\nc = '\\''\nd = [\n  1,\n]\n";
    let (source, logical) = Source::read(text);
    assert_eq!(
        logical
            .iter()
            .map(|l| (l.first, l.last))
            .collect::<Vec<_>>(),
        [(1, 1), (2, 2), (3, 3), (4, 6)]
    );
    assert_eq!(source.first_line(5), 4);
}

#[test]
fn unbalanced_text_never_panics() {
    for text in [
        ")))",
        "'''",
        "def",
        "class 1:",
        "\\",
        "@x\n",
        "x = (\n",
        "\"\\",
        "async def\n",
    ] {
        let (source, _) = Source::read(text);
        assert!(source.first_line(1) <= 1 && source.first_line(99) == 99);
    }
}
