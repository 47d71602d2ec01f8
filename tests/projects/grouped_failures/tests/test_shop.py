import pytest

from shop import PRICES, discount, load_settings, stock_of, total

BASKETS = [([("apple", n)], 3 * n) for n in range(1, 31)]


@pytest.mark.parametrize("basket, expected", BASKETS + [([], 0), ([("pear", 0)], 0)])
def test_total(basket, expected):
    print(f"basket: {basket}")
    assert total(basket) == expected


@pytest.mark.parametrize("name", ["apple", "pear", "plum", "kiwi", "fig", "lime"])
def test_stock(name):
    assert stock_of(name) >= 0


@pytest.mark.parametrize("amount, expected", [(50, 50), (100, 90), (200, 180), (99, 99)])
def test_discount(amount, expected):
    assert discount(amount) == expected


@pytest.fixture
def settings(tmp_path):
    return load_settings(tmp_path)


def test_currency(settings):
    assert settings["currency"] == "EUR"


def test_language(settings):
    assert settings["language"] == "en"


def test_timezone(settings):
    assert settings["timezone"] == "UTC"


def test_cheapest_product():
    assert min(PRICES, key=PRICES.get) == "apple"


def test_prices_are_positive():
    assert all(p > 0 for p in PRICES.values())


def test_product_names_are_lowercase():
    assert all(name.islower() for name in PRICES)
