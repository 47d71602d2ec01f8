import time

import pytest


@pytest.fixture(scope="module")
def templates():
    time.sleep(2.0)  # templates compiled
    return ["t"] * 20


@pytest.mark.parametrize("i", range(20))
def test_report(templates, i):
    time.sleep(0.1)
    assert templates[i] == "t"
