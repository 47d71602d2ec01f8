import pytest

from ledger.totals import format_money, total


def invoice(i):
    """A deterministic invoice: 2 to 6 amounts; every ninth ends in a zero
    amount, which the bug in total() does not notice."""
    amounts = [(i * 37 + k * 101) % 997 + 1 for k in range(2 + i % 5)]
    if i % 9 == 0:
        amounts[-1] = 0
    return pytest.param(amounts, sum(amounts), id=f"invoice-{i}")


# 450 cases: 400 fail (assert <a> == <b>, values differ per case), 50 pass.
@pytest.mark.parametrize("amounts, expected", [invoice(i) for i in range(450)])
def test_total(amounts, expected):
    assert total(amounts) == expected


def test_format_money():
    assert format_money(123456) == "1,234.56"


def test_format_money_pads_cents():
    # The one failure with no twin: cents below 10 lose their leading zero.
    assert format_money(123405) == "1,234.05"
