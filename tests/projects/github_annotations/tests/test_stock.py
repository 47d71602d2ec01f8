"""More failure groups than GitHub shows annotations for: one group of
three parametrizations (the largest, annotated first), then eleven of one
test each, one per line."""

import pytest


@pytest.mark.parametrize("n", [1, 2, 3])
def test_restock(n):
    assert n > 5, "restock needs more than five"  # crash: group


def test_shelf_01():
    assert 0, "shelf 1 is empty"


def test_shelf_02():
    assert 0, "shelf 2 is empty"


def test_shelf_03():
    assert 0, "shelf 3 is empty"


def test_shelf_04():
    assert 0, "shelf 4 is empty"


def test_shelf_05():
    assert 0, "shelf 5 is empty"


def test_shelf_06():
    assert 0, "shelf 6 is empty"


def test_shelf_07():
    assert 0, "shelf 7 is empty"


def test_shelf_08():
    assert 0, "shelf 8 is empty"


def test_shelf_09():
    assert 0, "shelf 9 is empty"


def test_shelf_10():
    assert 0, "shelf 10 is empty"


def test_shelf_11():
    assert 0, "shelf 11 is empty"


def test_in_stock():
    assert 3 > 1
