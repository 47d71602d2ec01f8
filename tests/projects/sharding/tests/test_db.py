import time

import pytest


@pytest.fixture(scope="module")
def db():
    time.sleep(4.0)  # the migration
    yield {"rows": 24}
    time.sleep(0.5)


@pytest.mark.parametrize("row", range(24))
def test_row(db, row):
    time.sleep(0.05)
    assert row < db["rows"]
