"""An API in the middle of a migration."""

import warnings


def fetch(url, timeout=None):
    if timeout is None:
        warnings.warn(UserWarning("fetch() called without a timeout; defaulting to 30s"))
        timeout = 30
    return {"url": url, "timeout": timeout}


def old_fetch(url):
    warnings.warn(
        "old_fetch() is deprecated, use fetch() instead",
        DeprecationWarning,
        stacklevel=2,
    )
    return fetch(url, timeout=10)
