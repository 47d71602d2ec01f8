import pytest

from ledger.parsing import parse_amount, parse_line


# 150 cases, all fail with ValueError raised in ledger/parsing.py; the message
# carries a number, a quoted string, a hex address and a temporary path.
@pytest.mark.parametrize("text", [f"{i},{i % 100:02d}" for i in range(150)])
def test_parse_amount(text):
    assert parse_amount(text) >= 0


# 100 cases that fail at the same place, from another test function.
@pytest.mark.parametrize(
    "line", [f"{i}.00;{i + 1},50;{i + 2}.25" for i in range(100)]
)
def test_parse_line(line):
    assert len(parse_line(line)) == 3


@pytest.mark.parametrize("i", range(20))
def test_parse_amount_with_dot(i):
    assert parse_amount(f"{i}.25") == i * 100 + 25
