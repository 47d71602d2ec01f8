"""Price lookup; deliberately incomplete."""

PRICES = {
    "apple": 0.5,
    "pear": 0.75,
    "plum": 0.3,
}


def unit_price(sku):
    price = PRICES.get(sku)
    if price is None:
        raise LookupError(f"no price configured for {sku!r}")
    return round(price, 2)


def parse_price(text):
    return float(text.strip().lstrip("$"))
