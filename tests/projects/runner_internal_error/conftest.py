"""A hook that raises: pytest reports INTERNALERROR and exits 3."""


def pytest_collection_modifyitems(items):
    raise RuntimeError("boom from pytest_collection_modifyitems")
