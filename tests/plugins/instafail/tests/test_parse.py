import pytest


def parse_version(text):
    major, minor, patch = text.split(".")
    return int(major), int(minor), int(patch)


def test_parse():
    assert parse_version("1.2.3") == (1, 2, 3)


def test_parse_short():
    assert parse_version("1.2") == (1, 2, 0)


@pytest.mark.parametrize("text", ["0.0.1", "10.20.30"])
def test_round_trip(text):
    assert ".".join(map(str, parse_version(text))) == text


def test_compare():
    assert parse_version("1.10.0") < parse_version("1.9.0")
