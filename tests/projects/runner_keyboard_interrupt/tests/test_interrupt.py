"""A test that raises KeyboardInterrupt: pytest stops and exits 2 without
collection errors, which ADR-007 calls an interrupted run."""


def test_first():
    assert True


def test_second_fails():
    assert 2 + 2 == 5


def test_interrupts():
    raise KeyboardInterrupt


def test_never_reached():
    assert True
