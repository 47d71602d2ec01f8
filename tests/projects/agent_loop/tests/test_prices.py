import pytest

from shop.prices import load_rates


@pytest.fixture
def rates():
    return load_rates()


def test_usd_rate(rates):
    assert rates["USD"] > 0


def test_gbp_rate(rates):
    assert rates["GBP"] > 0
