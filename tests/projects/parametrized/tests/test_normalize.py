import pytest

from normalize import collapse_spaces, fold, split_qualified


@pytest.mark.parametrize(
    "raw, expected",
    [
        ("Café", "cafe"),
        ("naïve", "naive"),
        ("日本", "日本"),
        ("🐍 Python", "🐍 python"),
        ("Straße", "strasse"),  # fails: ß does not decompose
        pytest.param("Ünïcödé", "unicode", id="ünï-日本"),
    ],
)
def test_fold(raw, expected):
    assert fold(raw) == expected


@pytest.mark.parametrize(
    "name, parts",
    [
        ("pkg::mod::func", ["pkg", "mod", "func"]),
        ("a::b", ["a", "b"]),
        ("no-separator", ["no-separator"]),
        ("trailing::", ["trailing"]),  # fails: yields an empty last part
    ],
)
def test_split_qualified(name, parts):
    assert split_qualified(name) == parts


@pytest.mark.parametrize(
    "text",
    ["a  b", " leading space", "tabs\tand spaces", "[brackets] [x]"],
)
def test_collapse_is_idempotent(text):
    once = collapse_spaces(text)
    assert collapse_spaces(once) == once


@pytest.mark.parametrize(
    "text, expected",
    [
        pytest.param("a\u00a0b", "a b", id="custom-id"),
        pytest.param("x  y", "x y", id="double space"),
        pytest.param("", "", id="empty"),
        pytest.param("  ", " ", id="only-spaces"),  # fails: collapses to ""
    ],
)
def test_collapse(text, expected):
    assert collapse_spaces(text) == expected


@pytest.mark.parametrize("size", [1, 2, 3])
class TestSizes:
    def test_positive(self, size):
        assert size > 0

    @pytest.mark.parametrize("unit", ["kB", "MB"])
    def test_even(self, size, unit):
        assert size % 2 == 0, f"{size}{unit} is odd"
