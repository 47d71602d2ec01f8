attempts = {"ping": 0}


def ping():
    attempts["ping"] += 1
    if attempts["ping"] == 1:
        raise ConnectionError("service not up yet")
    return "pong"


def test_ping_after_warm_up():
    assert ping() == "pong"


def test_status():
    assert {"status": "down"} == {"status": "up"}


def test_version():
    assert "pong".upper() == "PONG"
