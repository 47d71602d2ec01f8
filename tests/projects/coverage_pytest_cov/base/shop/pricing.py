"""Prices for the shop."""

TAX_RATE = 0.2


def unit_price(name, catalogue):
    return catalogue[name]


def total(items, catalogue):
    """Sum the prices of items, with tax."""
    subtotal = sum(unit_price(name, catalogue) * qty for name, qty in items)
    return round(subtotal * (1 + TAX_RATE), 2)


def describe(name, catalogue):
    return format_line(
        name,
        unit_price(name, catalogue),
        currency="EUR",
    )


def refund(name, catalogue):
    return format_line(
        name,
        -unit_price(name, catalogue),
        currency="EUR",
    )


def format_line(name, price, currency):
    return f"{name}: {price:.2f} {currency}"
