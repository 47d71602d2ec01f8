import pytest


def slugify(title):
    return "-".join(title.lower().split())


def merge_settings(defaults, overrides):
    merged = dict(defaults)
    merged.update(overrides)
    return merged


def test_slugify():
    assert slugify("Hello World") == "hello-world"


def test_slugify_punctuation():
    assert slugify("Hello, World!") == "hello-world"


def test_merge_settings():
    merged = merge_settings({"debug": False, "level": 1}, {"level": 2})
    assert merged == {"debug": False, "level": 2}


def test_merge_settings_nested():
    merged = merge_settings(
        {"db": {"host": "localhost", "port": 5432}, "debug": False},
        {"db": {"port": 6543}},
    )
    assert merged == {"db": {"host": "localhost", "port": 6543}, "debug": False}


def test_sorted_list():
    assert sorted([3, 1, 2]) == [1, 2, 3]


def test_list_contents():
    got = [n * n for n in range(6)]
    assert got == [0, 1, 4, 9, 15, 25]


def test_prints_then_fails():
    rows = [("alice", 3), ("bob", 0)]
    for name, score in rows:
        print(f"checking {name}: score={score}")
    scores = [score for _, score in rows]
    assert 0 not in scores


def test_type_error():
    parts = ["total:", 42]
    assert "".join(parts) == "total:42"


def test_key_error():
    config = {"host": "localhost"}
    assert config["port"] == 8080


def test_zero_division():
    values = []
    assert sum(values) / len(values) == 0


class TestFormatting:
    def test_padding(self):
        assert f"{7:03d}" == "007"

    def test_currency(self):
        amount = 1234.5
        assert f"{amount:,.2f}" == "1.234,50"

    def test_title_case(self):
        assert "o'neil".title() == "O'Neil"
