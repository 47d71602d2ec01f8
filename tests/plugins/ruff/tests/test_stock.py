from inventory.stock import low, restock


def test_restock():
    assert restock({"pen": 2}, "pen", 3) == {"pen": 5}


def test_low():
    assert low({"pen": 2, "ink": 9}) == ["pen"]
