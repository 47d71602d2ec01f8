"""A test that kills the interpreter with SIGSEGV after one passing test."""


def test_before_the_crash():
    assert "ok".upper() == "OK"


def test_segfaults():
    import ctypes

    ctypes.string_at(0)


def test_never_reached():
    assert True
