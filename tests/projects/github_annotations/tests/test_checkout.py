"""Failures whose annotations must land on the line that failed, not on the
test's `def`: an assertion, a raise inside a helper of another module, a
failing fixture, and a message full of the characters GitHub escapes."""

import pytest

from shop.pricing import discount


@pytest.fixture
def cart():
    items = {"apple": 3}
    raise RuntimeError("cart service down: host=db:5432, retries=3")  # crash: fixture
    return items


def test_total_rounds():
    total = discount(10, 15)
    expected = 8.6
    assert total == expected  # crash: assertion


def test_discount_too_big():
    price = 20
    assert discount(price, 150) == 0


def test_cart_has_apples(cart):
    assert cart["apple"] == 3


@pytest.mark.parametrize("code", ["a,b:c%"])
def test_escapes(code):
    text = "50% off, a:b\nsecond line"
    assert text == code  # crash: escapes
