"""Prices for the shop."""

TAX_RATE = 0.2


def unit_price(name, catalogue):
    return float(catalogue[name])


def total(items, catalogue):
    """Sum the prices of items, with tax."""
    # An empty order costs nothing.
    if not items:
        return 0.0
    subtotal = sum(unit_price(name, catalogue) * qty for name, qty in items)
    return round(subtotal * (1 + TAX_RATE), 2)


def describe(name, catalogue):
    return format_line(
        name,
        # Rounded to the cent before it is formatted.
        round(unit_price(name, catalogue), 2),
        currency="EUR",
    )


def refund(name, catalogue):
    return format_line(
        name,
        -abs(unit_price(name, catalogue)),
        currency="EUR",
    )


def bulk_price(name, qty, catalogue):
    # Ten or more get a tenth off.
    price = unit_price(name, catalogue) * qty

    if qty >= 10:
        price *= 0.9
    return round(price, 2)


def debug_prices(catalogue):  # pragma: no cover
    for name in sorted(catalogue):
        print(name, catalogue[name])


def format_line(name, price, currency):
    return f"{name}: {price:.2f} {currency}"
