from shop.prices import discount, with_tax


def test_with_tax():
    assert with_tax(10) == 12.0


def test_discount():
    assert discount(10, 50) == 5.0
