"""A test that fails on odd runs of unchanged code (or as FLIP_MODE says),
and one that always fails: the history of runs must call the first flaky and
the second failing since the first run (tests/history.rs, flaky_state.rs)."""

import os
import pathlib

# Outside the code: a run's count, where the test that drives the project
# puts it (a folder of its own), else in pytest's cache folder.
COUNTER = pathlib.Path(os.environ.get("FLIP_COUNTER", pathlib.Path(__file__).parent / ".pytest_cache" / "flip-count"))


def test_flip():
    # FLIP_MODE "pass" or "fail" decides every attempt alike (retries).
    told = os.environ.get("FLIP_MODE")
    n = (2 if told == "pass" else 1) if told else next_count()
    assert n % 2 == 0, f"odd run {n}"


def test_real_failure():
    assert "total" == "totals"


def test_ok():
    pass


def next_count():
    COUNTER.parent.mkdir(parents=True, exist_ok=True)
    n = int(COUNTER.read_text()) + 1 if COUNTER.exists() else 1
    COUNTER.write_text(str(n))
    return n
