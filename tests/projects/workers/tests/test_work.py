"""A suite that runs the same with pytest-xdist workers as without: every
outcome pytest knows (pass, fail, setup error, skip, xfail, xpass), a class,
and slow parametrized cases that two workers share, so the run is shorter
with them. pytest-mcp must give the same counts and ids either way.
"""

import time

import pytest


@pytest.mark.parametrize("n", range(8))
def test_slow(n):
    time.sleep(0.25)
    assert n >= 0


def test_fails():
    assert sum([1, 2]) == 4


@pytest.fixture
def broken():
    raise RuntimeError("no database")


def test_setup_error(broken):
    pass


def test_skipped():
    pytest.skip("not on this platform")


@pytest.mark.xfail(reason="known bug")
def test_xfail():
    assert False


@pytest.mark.xfail(reason="fixed already")
def test_xpass():
    pass


class TestGroup:
    def test_one(self):
        pass

    def test_prints_and_fails(self):
        print("captured line")
        assert "a" == "b"
