import time

import pytest


@pytest.mark.parametrize("route", range(10))
def test_route(route):
    time.sleep(0.05)
    assert route >= 0


class TestAccounts:
    @classmethod
    def setup_class(cls):
        time.sleep(3.0)  # an account service started
        cls.accounts = list(range(16))

    @pytest.mark.parametrize("n", range(16))
    def test_account(self, n):
        time.sleep(0.08)
        assert n in self.accounts
