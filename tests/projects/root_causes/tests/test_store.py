import pytest

from ledger.store import Ledger


@pytest.fixture
def ledger():
    # Fails in setup for every test that uses it: 50 errors, one cause.
    return Ledger("postgres://ledger.internal:5432/books")


@pytest.mark.parametrize("cents", range(30))
def test_post(ledger, cents):
    assert ledger.post(cents) == 1


@pytest.mark.parametrize("n", range(20))
def test_balance(ledger, n):
    for cents in range(n):
        ledger.post(cents)
    assert ledger.balance() == n * (n - 1) // 2


@pytest.mark.parametrize("n", range(27))
def test_memory_ledger(n):
    ledger = Ledger("memory://")
    for cents in range(n):
        ledger.post(cents)
    assert ledger.balance() == n * (n - 1) // 2
