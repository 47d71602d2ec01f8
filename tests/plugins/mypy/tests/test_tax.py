from billing.tax import with_vat


def test_with_vat() -> None:
    assert with_vat(10) == 12.0
