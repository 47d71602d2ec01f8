from flaky import flaky

from mailer import recipients, send, subject


@flaky(max_runs=3, min_passes=2)
def test_send():
    assert send("ada") == "queued for ada"


@flaky(max_runs=3, min_passes=2)
def test_subject():
    assert subject("ada") == "Hello ada"


@flaky(max_runs=3, min_passes=2)
def test_recipients():
    assert recipients("staff") == ["ada", "bob"]
