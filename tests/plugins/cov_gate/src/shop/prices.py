def with_tax(amount, rate=0.2):
    return round(amount * (1 + rate), 2)


def discount(amount, percent):
    if percent < 0:
        raise ValueError("negative discount")
    return round(amount * (100 - percent) / 100, 2)


def free_shipping(total):
    return total >= 50
