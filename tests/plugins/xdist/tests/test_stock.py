import pytest

from inventory.stock import Stock


@pytest.fixture
def stock():
    s = Stock()
    s.add("apple", 3)
    return s


def test_add(stock):
    stock.add("apple", 2)
    assert stock.items["apple"] == 5


def test_take(stock):
    stock.take("apple", 1)
    assert stock.items["apple"] == 2


def test_take_too_many(stock):
    stock.take("apple", 4)


@pytest.mark.parametrize("count", [1, 2, 3])
def test_take_each(stock, count):
    stock.take("apple", count)
    assert stock.items["apple"] == 3 - count


def test_count_after_two_adds(stock):
    stock.add("pear", 1)
    stock.add("pear", 1)
    assert stock.items["pear"] == 3
