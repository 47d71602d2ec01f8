try:
    import newpkg
except ImportError:
    newpkg = None


def test_newpkg_is_not_installed():
    assert newpkg is None, f"newpkg {newpkg.VERSION} is installed"


def test_always():
    pass
