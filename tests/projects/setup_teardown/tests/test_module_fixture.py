import pytest

from db import Connection


@pytest.fixture(scope="module")
def shared_conn():
    # Module-scoped fixture that fails: every test using it errors in setup.
    return Connection("mysql://shared")


def test_shared_first(shared_conn):
    assert shared_conn.open


def test_shared_second(shared_conn):
    assert shared_conn.rows == []


def test_without_fixture():
    assert 1 + 1 == 2
