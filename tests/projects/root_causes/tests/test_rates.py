import itertools
import string

import pytest

from ledger.rates import convert

# 350 currency codes the truncated rate table does not know: XAA, XAB, ...
UNKNOWN = ["X" + a + b for a, b in itertools.product(string.ascii_uppercase, repeat=2)][:350]


# 350 cases, all fail with KeyError('<code>') raised in ledger/rates.py.
@pytest.mark.parametrize(
    "cents, currency", [(100 + 7 * i, code) for i, code in enumerate(UNKNOWN)]
)
def test_convert(cents, currency):
    assert convert(cents, currency) > 0


@pytest.mark.parametrize("currency, expected", [("EUR", 1000), ("USD", 920)])
def test_convert_known(currency, expected):
    assert convert(1000, currency) == expected
