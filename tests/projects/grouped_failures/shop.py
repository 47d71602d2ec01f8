"""A small shop whose bugs break many tests in a few ways."""

PRICES = {"apple": 3, "pear": 4, "plum": 2}


def total(quantities):
    """The price of a basket: off by one per item (the bug)."""
    return sum(PRICES[name] * n + 1 for name, n in quantities)


def stock_of(name):
    """How many of a product are in stock: the stock table is empty."""
    stock = {}
    return stock[name]


def discount(amount):
    """10% off from 100 on, rounded down; wrong for exactly 100."""
    if amount > 100:
        return amount * 9 // 10
    return amount


def load_settings(folder):
    """Reads the shop's settings; there are none."""
    raise RuntimeError(f"no settings file in {folder}")
