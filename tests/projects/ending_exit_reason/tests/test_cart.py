def test_empty_cart_totals_zero():
    assert sum([]) == 0


def test_one_item():
    assert sum([3]) == 3
