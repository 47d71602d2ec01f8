from shapes import area


def test_square():
    assert area(3, 3) == 9


def test_zero_width():
    assert area(0, 7) == 0
