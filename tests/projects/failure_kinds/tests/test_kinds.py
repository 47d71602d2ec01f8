"""Failures of kinds real suites meet every day, each to be told right
(tests/failure_kinds.rs): a chained exception, a deep recursion, and
pytest.fail without a traceback."""

import pytest


def load(path):
    with open(path) as f:
        return f.read()


def read_config():
    try:
        return load("/nonexistent/app.toml")
    except FileNotFoundError as e:
        raise RuntimeError("config missing") from e


def parse_port(text):
    try:
        return int(text)
    except ValueError:
        raise LookupError(f"no port in {text!r}")


def test_chained():
    read_config()


def test_raised_while_handling():
    parse_port("eighty")


def recurse(n):
    return recurse(n + 1)


def test_recursion():
    recurse(0)


def test_fail_without_traceback():
    pytest.fail("the service answered 503", pytrace=False)


def check(n):
    if n < 0:
        raise ValueError(f"negative: {n}")
    return n


def collect_problems():
    problems = []
    for n in (-1, 2):
        try:
            check(n)
        except ValueError as e:
            problems.append(e)
    problems.append(KeyError("missing"))
    return problems


def test_group():
    raise ExceptionGroup("two problems", collect_problems())


def test_needs_a_fixture_no_one_defined(database):
    assert database


def wait_forever():
    import time

    time.sleep(30)


@pytest.mark.timeout(1)
def test_hangs():
    import threading
    import time

    threading.Thread(target=wait_forever, daemon=True).start()
    time.sleep(5)
