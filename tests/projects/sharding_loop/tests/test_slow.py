import time


def test_import_everything():
    time.sleep(2.0)


def test_full_sync():
    time.sleep(1.5)


def test_backfill():
    time.sleep(1.0)


def test_rebuild_index():
    time.sleep(0.8)
