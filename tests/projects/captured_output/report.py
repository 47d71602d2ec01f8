"""Builds a small status report and logs what it does."""

import logging
import sys

log = logging.getLogger("report")

GREEN = "\x1b[32m"
RED = "\x1b[31m"
RESET = "\x1b[0m"


def status_line(name, ok):
    colour = GREEN if ok else RED
    return f"{colour}{'OK' if ok else 'FAIL'}{RESET} {name}"


def summarize(results):
    failed = [name for name, ok in results.items() if not ok]
    for name in failed:
        log.warning("check %s failed", name)
    if failed:
        print(f"{len(failed)} check(s) failed", file=sys.stderr)
    return {"total": len(results), "failed": len(failed)}
