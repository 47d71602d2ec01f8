from shop.pricing import describe, total, unit_price

CATALOGUE = {"tea": 2.5, "cake": 3.0}


def test_total():
    assert total([("tea", 2), ("cake", 1)], CATALOGUE) == 9.6


def test_describe():
    assert describe("tea", CATALOGUE) == "tea: 2.50 EUR"


def test_unit_price_is_a_float():
    assert isinstance(unit_price("cake", {"cake": 3}), float)
