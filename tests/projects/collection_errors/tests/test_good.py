from calc import add, square


def test_add():
    assert add(2, 2) == 4


def test_square():
    assert square(3) == 9
