"""Two parametrizations fail and one test errors in setup until a file
named FIXED exists in the project root (tests/last_failed.rs writes it)."""

import pathlib

import pytest

FIXED = (pathlib.Path(__file__).parent.parent / "FIXED").exists()


@pytest.fixture
def database():
    if not FIXED:
        raise RuntimeError("database is down")
    return {}


def test_passes():
    pass


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_even(n):
    assert FIXED or n % 2 == 0


def test_uses_database(database):
    assert database == {}


def test_also_passes():
    pass
