def with_vat(cents, rate=20):
    return cents + cents * rate // 100


def rounded(cents):
    return (cents + 5) // 10 * 10
