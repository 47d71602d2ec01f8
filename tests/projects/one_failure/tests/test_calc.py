from calc import add, discount, sub


def test_add():
    assert add(1, 2) == 3


def test_sub():
    assert sub(10, 4) == 6


def test_discount_whole():
    assert discount(200, 50) == 100


def test_discount_fractional():
    assert discount(9.99, 10) == 8.991


def test_add_negative():
    assert add(-1, -1) == -2
