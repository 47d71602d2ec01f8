import time

import pytest


def wait_for_reply(seconds):
    time.sleep(seconds)
    return "reply"


def test_quick_reply():
    assert wait_for_reply(0.01) == "reply"


def test_reply_never_comes():
    assert wait_for_reply(30) == "reply"


@pytest.mark.timeout(3)
def test_own_longer_limit():
    assert wait_for_reply(0.6) == "reply"


def test_after_the_timeout():
    assert wait_for_reply(0) == "reply"


def test_wrong_reply():
    assert wait_for_reply(0) == "pong"
