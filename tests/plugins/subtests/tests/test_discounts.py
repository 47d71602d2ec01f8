import unittest

RATES = {"bronze": 0, "silver": 5, "gold": 10, "platinum": 15, "staff": 30}


class TestRates(unittest.TestCase):
    def test_rates(self):
        expected = {"bronze": 0, "silver": 5, "gold": 12, "platinum": 15, "staff": 25}
        for tier, rate in expected.items():
            with self.subTest(tier=tier):
                self.assertEqual(RATES[tier], rate)


def test_rates_are_percentages(subtests):
    for tier, rate in RATES.items():
        with subtests.test(msg="percentage", tier=tier):
            assert 0 <= rate <= 20


def test_tiers():
    assert len(RATES) == 5
