"""Subtests, told as named parts of their test (tests/failure_kinds.rs):
pytest's `subtests` fixture, where two subtests of a loop fail with
different messages and one prints; a test whose subtests all pass; and
unittest's `subTest`, failing for two of its parameters."""

import unittest


def test_sizes(subtests):
    for i in range(4):
        with subtests.test("size", i=i):
            print(f"checking size {i}")
            if i == 3:
                raise ValueError(f"i={i} is odd")
            assert i < 2, f"i={i} too big"


def test_every_subtest_passes(subtests):
    for name in ("alpha", "beta"):
        with subtests.test(name=name):
            assert name.isalpha()


class TestParity(unittest.TestCase):
    def test_even(self):
        for n in range(4):
            with self.subTest("parity", n=n):
                self.assertEqual(n % 2, 0, f"{n} is odd")
