"""Tiny arithmetic helpers used by the tests."""


def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def discount(price, percent):
    # Bug: integer division truncates the discount.
    return price - price * percent // 100
