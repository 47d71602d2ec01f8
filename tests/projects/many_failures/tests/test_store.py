import pytest

from inventory.pricing import parse_price, unit_price
from inventory.store import OutOfStock, Store


@pytest.fixture
def store():
    return Store({"apple": 10, "pear": 2, "plum": 0})


def test_take_reduces_stock(store):
    store.take("apple", 3)
    assert store.stock["apple"] == 7


def test_take_too_many_raises(store):
    with pytest.raises(OutOfStock):
        store.take("pear", 5)


def test_take_exact_amount_raises(store):
    # Fails: taking exactly what is left is allowed, so nothing is raised.
    with pytest.raises(OutOfStock):
        store.take("pear", 2)


def test_take_unknown_sku(store):
    # Fails with a KeyError from inside Store.take.
    assert store.take("banana", 1) == 1


def test_order_total(store):
    assert store.order_total([("apple", 2), ("pear", 1)]) == 1.75


def test_order_total_unpriced_item(store):
    # Fails deep inside inventory/store.py -> inventory/pricing.py.
    assert store.order_total([("apple", 1), ("kiwi", 2)]) == 1.5


def test_summary_skips_empty(store):
    assert store.summary() == {"apple": 10, "pear": 2}


def test_summary_after_take(store):
    store.take("apple", 4)
    assert store.summary() == {"apple": 5, "pear": 2}


def test_unit_price():
    assert unit_price("plum") == 0.3


def test_parse_price():
    assert parse_price(" $1.25 ") == 1.25


def test_parse_price_with_comma():
    # Fails with ValueError from float().
    assert parse_price("$1,25") == 1.25


def test_price_keys():
    from inventory.pricing import PRICES

    assert sorted(PRICES) == ["apple", "banana", "pear", "plum"]
