import pytest

from calc import add, mean, mul


def test_add():
    assert add(2, 3) == 5


def test_mul():
    assert mul(4, 5) == 20


def test_mean_of_empty_raises():
    with pytest.raises(ValueError, match="empty"):
        mean([])
