def with_vat(amount: float, rate: float = 0.2) -> float:
    return round(amount * (1 + rate), 2)
