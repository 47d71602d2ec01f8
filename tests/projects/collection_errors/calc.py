"""Tiny arithmetic helpers used by the tests."""


def add(a, b):
    return a + b


def square(x):
    return x * x
