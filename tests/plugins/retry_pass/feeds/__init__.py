"""A feed reader whose first fetch fails while its cache warms up."""

fetches = {"count": 0}


def fetch(name):
    fetches["count"] += 1
    if fetches["count"] == 1:
        raise ConnectionResetError("feed cache not warm yet")
    return ["first post", "second post"]
