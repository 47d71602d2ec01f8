import asyncio

from shop.prices import fetch_all, load_price, parse_price, validate


def test_fetch_all():
    assert asyncio.run(fetch_all(["apple", "broken", "pear"])) == [10, 10, 10]


def test_validate():
    validate({"qty": 0})


def test_load_price():
    assert load_price({"apple": 1.5}, "pear") == 1.5


def test_parse_price():
    assert parse_price("12,50") == 12.5


def test_fetch_all_good():
    assert asyncio.run(fetch_all(["apple", "pear"])) == [10, 10]
