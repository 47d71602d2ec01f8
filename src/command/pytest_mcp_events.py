"""pytest-mcp's event log: a pytest plugin loaded from pytest-mcp's private
temporary directory for one run (`-p pytest_mcp_events`); nothing is installed.

It appends one JSON object per line to the file named by PYTEST_MCP_EVENTS and
flushes each line, so that progress can be reported while tests run, and so
that after a timeout or a crash (when neither the JUnit XML nor the JSON report
was written) pytest-mcp still knows which tests finished, how, and which test
was running. With PYTEST_MCP_ITEMS set it also lists the collected items
(for discovery).
"""

import json
import linecache
import os

_PATH = os.environ.get("PYTEST_MCP_EVENTS")
_ITEMS = bool(os.environ.get("PYTEST_MCP_ITEMS"))
_MAX_TEXT = 20000
_file = None


def _emit(record):
    global _file
    if not _PATH:
        return
    try:
        if _file is None:
            _file = open(_PATH, "a", encoding="utf-8", errors="replace")
        _file.write(json.dumps(record, ensure_ascii=False, default=str) + "\n")
        _file.flush()
    except OSError:
        pass


def _text(value):
    text = str(value)
    if len(text) > _MAX_TEXT:
        half = _MAX_TEXT // 2
        text = text[:half] + "\n[...]\n" + text[-half:]
    return text


def pytest_collectreport(report):
    if report.failed:
        _emit({"event": "collecterror", "nodeid": report.nodeid, "longrepr": _text(report.longrepr)})


def _def_line(item, line):
    """The line of the `def` itself: pytest's location points at the first
    decorator of a decorated test."""
    path = str(getattr(item, "path", "") or getattr(item, "fspath", ""))
    if not path or line is None:
        return line
    for n in range(line, line + 40):
        text = linecache.getline(path, n).lstrip()
        if text.startswith(("def ", "async def ")):
            return n
        if not text.startswith("@") and text and not text.startswith(("#", ")", "]", "}", ",")) and n == line:
            return line
    return line


def pytest_collection_finish(session):
    _emit({"event": "collected", "count": len(session.items)})
    if not _ITEMS:
        return
    for item in session.items:
        path, lineno, _ = item.location
        module = getattr(item, "module", None)
        cls = getattr(item, "cls", None)
        _emit({
            "event": "item",
            "nodeid": item.nodeid,
            "file": path,
            "line": None if lineno is None else _def_line(item, lineno + 1),
            "module": getattr(module, "__name__", None),
            "class": getattr(cls, "__name__", None),
            "function": getattr(item, "originalname", None) or item.name,
        })


def pytest_runtest_logstart(nodeid, location):
    _emit({"event": "start", "nodeid": nodeid})


def pytest_runtest_logreport(report):
    record = {
        "event": "report",
        "nodeid": report.nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": getattr(report, "duration", None),
    }
    if hasattr(report, "wasxfail"):
        record["wasxfail"] = _text(report.wasxfail)
    if report.failed or report.skipped:
        record["longrepr"] = _text(report.longrepr)
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            record["message"] = _text(crash.message)
    _emit(record)


def pytest_runtest_logfinish(nodeid, location):
    _emit({"event": "finish", "nodeid": nodeid})
