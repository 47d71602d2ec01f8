import time

import pytest


@pytest.mark.slow
@pytest.mark.parametrize("seconds", [3.0, 2.5, 2.0, 1.5])
def test_slow(seconds):
    time.sleep(seconds)
