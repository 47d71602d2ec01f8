import pytest

# The whole module is skipped because the optional dependency is missing.
xyz = pytest.importorskip("module_that_does_not_exist_xyz")


def test_uses_optional_dependency():
    assert xyz.version() >= (1, 0)


def test_uses_optional_dependency_again():
    assert xyz.ready()
