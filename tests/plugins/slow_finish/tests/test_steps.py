import time


def step(seconds):
    time.sleep(seconds)
    return seconds


def test_first_step():
    assert step(0.05) == 0.05


def test_second_step():
    assert step(0.05) == 0.05


def test_third_step():
    assert step(0.05) == 0.5
