"""A test that flips and one that really fails, with no reruns configured:
`retries` (`run --retries N`) asks pytest-rerunfailures for them.

pytest-rerunfailures reruns a test in the same process, so a module-level
counter tells the attempts apart: without retries the flip fails, with them
it passes on its second attempt.
"""

attempts = {"flip": 0}


def test_steady():
    assert 2 * 3 == 6


def test_flip():
    attempts["flip"] += 1
    # Fails on its first attempt only.
    assert attempts["flip"] > 1, "connection refused on first try"


def test_real_failure():
    assert [1, 2, 3] == [1, 2, 4]
