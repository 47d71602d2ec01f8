import itertools

import pytest

_counter = itertools.count(1)


def next_id():
    return next(_counter)


@pytest.mark.repeat(3)
def test_ids_are_positive():
    assert next_id() > 0


@pytest.mark.repeat(3)
def test_ids_stay_small():
    assert next_id() < 6


def test_format():
    assert f"{7:04d}" == "0007"
