from prices import rounded, with_vat


def test_with_vat():
    assert with_vat(1000) == 1200


def test_reduced_rate():
    assert with_vat(1000, rate=5) == 1055


def test_rounded():
    assert rounded(1234) == 1230
