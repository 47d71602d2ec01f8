import pytest

from warehouse import connect, stock, sync


def test_connect():
    assert connect() == "connected"


@pytest.mark.flaky(retries=3)
def test_sync():
    assert sync() == 12


def test_total():
    assert stock("apple") + stock("pear") == 5


def test_apple():
    assert stock("apple") == 3


def test_plum():
    assert stock("plum") == 1
