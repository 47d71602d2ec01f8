"""Tiny arithmetic helpers used by the tests."""


def add(a, b):
    return a + b


def mul(a, b):
    return a * b


def mean(values):
    if not values:
        raise ValueError("mean of empty sequence")
    return sum(values) / len(values)
