import pytest

from shop.cart import total


@pytest.mark.parametrize(
    "items, expected",
    [
        ([("apple", 2, 1)], 2),
        ([("apple", 2, 2)], 4),
        ([("pear", 3, 2)], 6),
        ([("pear", 3, 3)], 9),
    ],
)
def test_total(items, expected):
    assert total(items) == expected


def test_empty_basket_costs_nothing_more_than_one():
    assert total([]) <= 1
