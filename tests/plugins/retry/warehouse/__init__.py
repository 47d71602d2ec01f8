"""A warehouse client whose first calls fail while it warms up."""

attempts = {"connect": 0, "sync": 0}
LEVELS = {"apple": 3, "pear": 0}


def connect():
    attempts["connect"] += 1
    if attempts["connect"] == 1:
        raise ConnectionError("warehouse not up yet")
    return "connected"


def sync():
    attempts["sync"] += 1
    if attempts["sync"] < 3:
        raise TimeoutError(f"sync timed out (attempt {attempts['sync']})")
    return 12


def stock(sku):
    if sku not in LEVELS:
        raise LookupError(f"no stock level for {sku!r}")
    return LEVELS[sku]
