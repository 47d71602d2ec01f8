"""Helpers that describe the running platform."""

import os
import sys


def is_windows():
    return sys.platform.startswith("win")


def path_separator():
    return os.sep


def python_tag():
    return f"py{sys.version_info.major}{sys.version_info.minor}"
