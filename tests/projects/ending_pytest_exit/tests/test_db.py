"""pytest.exit() with a status of 1, the way a fixture stops a suite
whose database is gone: the tests after it never run."""

import pytest


def test_connects():
    assert True


def test_database_gone():
    pytest.exit("the database went away", returncode=1)


def test_never_reached():
    assert True
