import pytest

from shapes import area


# 5,000 parametrizations of one function: what discovery must summarise
# ("test_many — 5,000 cases") instead of listing.
@pytest.mark.parametrize("width, height", [(w, h) for w in range(50) for h in range(100)])
def test_many(width, height):
    assert area(width, height) == width * height
