from shop.stock import available


def test_known_fruit():
    assert available("apple") == 3


def test_unknown_fruit_is_zero():
    assert available("kiwi") == 0


def test_unknown_vegetable_is_zero():
    assert available("leek") == 0


def test_another_unknown_is_zero():
    assert available("plum") == 0
