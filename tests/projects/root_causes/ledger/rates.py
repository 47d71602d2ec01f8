"""Currency conversion; the rate table was truncated by a bad merge."""

RATES = {
    "EUR": 100,
    "USD": 92,
}


def rate_for(currency):
    return RATES[currency]


def convert(cents, currency):
    print(f"converting {cents} {currency}")
    return cents * rate_for(currency) // 100
