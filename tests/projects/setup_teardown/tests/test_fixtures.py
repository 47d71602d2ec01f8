import pytest

from db import Connection


@pytest.fixture
def conn():
    c = Connection("sqlite://:memory:")
    yield c
    c.close()


@pytest.fixture
def remote_conn():
    # Raises during setup: the test body never runs.
    return Connection("postgres://db.internal/app")


def test_fresh_connection_is_open(conn):
    assert conn.open


def test_remote_query(remote_conn):
    assert remote_conn.rows == []


def test_insert_passes_but_teardown_fails(conn):
    # The test itself passes; closing the connection afterwards raises.
    conn.insert({"id": 1})
    assert len(conn.rows) == 1


def test_insert_fails_and_teardown_fails(conn):
    # Fails in the call phase AND errors in teardown.
    conn.insert({"id": 1})
    conn.insert({"id": 2})
    assert len(conn.rows) == 3
