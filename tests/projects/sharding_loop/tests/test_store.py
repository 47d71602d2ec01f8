import time

import pytest


@pytest.fixture(scope="module")
def store():
    time.sleep(2.0)  # the store filled
    return {"items": 12}


@pytest.mark.parametrize("item", range(12))
def test_item(store, item):
    time.sleep(0.1)
    assert item < store["items"]
