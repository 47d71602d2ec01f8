import time

import pytest


@pytest.mark.parametrize("i", range(40))
def test_fast(i):
    time.sleep(0.02 + 0.001 * i)
