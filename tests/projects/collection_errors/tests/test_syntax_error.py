from calc import add


def test_add_many():
    total = 0
    for n in range(5)
        total = add(total, n)
    assert total == 10
