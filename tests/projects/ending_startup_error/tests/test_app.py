def test_never_collected():
    assert True
