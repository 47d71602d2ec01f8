"""A test that flips and one that really fails, under pytest-rerunfailures.

pytest-rerunfailures reruns a test in the same process, so a module-level
counter tells the attempts apart.
"""

attempts = {"flip": 0}


def test_steady():
    assert 1 + 1 == 2


def test_flip():
    attempts["flip"] += 1
    # Fails on its first attempt only: flaky, passed on the second.
    assert attempts["flip"] > 1, "service not ready yet"


def test_real_failure():
    assert "total" == "totals"


def test_also_steady():
    assert "x".upper() == "X"
