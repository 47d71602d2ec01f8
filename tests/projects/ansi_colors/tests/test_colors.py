"""Colour codes where a coloured assertion library (rich, pytest-clarity,
colorama) puts them: the assertion message, captured output, log records,
a warning and a skip reason."""

import logging
import sys
import warnings

import pytest

RED = "\x1b[31m"
BOLD = "\x1b[1m"
RESET = "\x1b[0m"


def test_passes():
    assert True


def test_coloured_failure():
    print(f"{RED}stdout in red{RESET}\r\nprogress 50%\rprogress 100%")
    sys.stderr.write(f"{BOLD}stderr bold{RESET}\x07\n")
    logging.getLogger("colours").warning(f"{RED}log record{RESET}")
    warnings.warn(f"{RED}a coloured warning{RESET}")
    assert 1 + 2 == 4, f"{RED}AssertionError: {BOLD}expected 3{RESET}"


def test_coloured_skip():
    pytest.skip(f"{RED}needs a database{RESET}")
