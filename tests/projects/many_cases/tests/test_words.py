def test_upper():
    assert "a".upper() == "A"


def test_split():
    assert "a b".split() == ["a", "b"]
