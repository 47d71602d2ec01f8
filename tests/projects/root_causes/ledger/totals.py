"""Invoice totals; one off-by-one bug breaks most of test_total."""


def total(amounts):
    """The sum of the amounts, in cents."""
    # Bug: the last amount is dropped (should be amounts[:]).
    return sum(amounts[:-1])


def format_money(cents):
    """1234567 -> '12,345.67'."""
    units, rest = divmod(cents, 100)
    return f"{units:,}.{rest}"
