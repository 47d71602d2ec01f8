from calc import does_not_exist


def test_does_not_exist():
    assert does_not_exist() is None
