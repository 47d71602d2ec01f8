"""Prices and discounts: the helper a test calls, in another module."""


def discount(price, percent):
    if percent > 100:
        raise ValueError(f"discount of {percent}% is over 100%")  # crash: helper
    return price * (100 - percent) / 100
