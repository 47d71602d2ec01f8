from shop.pricing import describe, total

CATALOGUE = {"tea": 2.5, "cake": 3.0}


def test_total():
    assert total([("tea", 2), ("cake", 1)], CATALOGUE) == 9.6


def test_describe():
    assert describe("tea", CATALOGUE) == "tea: 2.50 EUR"
