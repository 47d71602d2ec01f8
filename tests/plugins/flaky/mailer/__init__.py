"""A mail client whose first send fails while the relay warms up."""

sends = {"count": 0}


def send(to):
    sends["count"] += 1
    if sends["count"] == 1:
        raise ConnectionRefusedError("relay not up yet")
    return f"queued for {to}"


def subject(name):
    return f"Hello {name}"


def recipients(group):
    return {"team": ["ada", "bob"]}.get(group, [])
