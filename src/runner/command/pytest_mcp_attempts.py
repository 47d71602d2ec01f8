"""pytest-mcp's record of what pytest-json-report loses of a test run again
or a failure rewritten; written beside pytest_mcp_events.py, which
registers it (in the process that writes the JSON report) and calls
`into_tests` on the report's tests before writing it.

Plugins that run a failed test again leave one pytest-json-report entry
per test, with the last attempt's phases, so what the failed attempts said
is lost there:

- pytest-rerunfailures reports each failed attempt with the outcome
  "rerun";
- pytest-retry reports the first one with "retried" (or the word its
  --retry-outcome names) and none after it, and counts them all in the
  item's stash;
- flaky reports none, and counts the runs on the item with their errors
  (a test that passed every run it needed had no failed attempt).

Each failed attempt becomes an entry of its own with the outcome "rerun"
right before the test's entry: the failed phase with its crash and
longrepr, or, for those nothing was said of, the phase alone.

A plugin may give a failure its own text after it was reported:
pytest-ruff sets `report.longrepr` to ruff's findings in
pytest_exception_interact, so pytest prints them, where pytest-json-report
saw the traceback through pytest's and pluggy's frames (35 KB for four
findings). The text pytest printed replaces it (the crash and its frames
with it: a text has none).
"""

import sys

import pytest


class Attempts:
    def __init__(self, text, is_subtest):
        # `text(value)`: a value as the report's text, cut when long.
        self._text = text
        self._is_subtest = is_subtest
        # Failed attempts in pytest-json-report's shape, per test:
        # [(attempt number or None, entry)], oldest first.
        self._attempts = {}
        # A failed phase's longrepr as reported, per (test, phase), and the
        # text a plugin set in its place afterwards.
        self._reported = {}
        self._replaced = {}

    def _is_attempt(self, report):
        """A failed attempt the test goes on from: a phase's report with a
        word of a retrying plugin ("rerun", "retried", ...) that carries a
        failure; a subtest's report is never one."""
        return (
            report.outcome not in ("passed", "failed", "skipped")
            and report.longrepr is not None
            and not self._is_subtest(report)
        )

    def _record(self, report):
        """Keeps a failed attempt's phase as an entry of its own."""
        nodeid = report.nodeid
        number = getattr(report, "rerun", None)
        attempts = self._attempts.setdefault(nodeid, [])
        if not attempts or attempts[-1][0] != number or number is None:
            location = getattr(report, "location", None) or (None, None, None)
            entry = {"nodeid": nodeid, "lineno": location[1], "outcome": "rerun"}
            attempts.append((number, entry))
        stage = {"outcome": "rerun", "duration": getattr(report, "duration", None)}
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            stage["crash"] = {"path": str(crash.path), "lineno": crash.lineno, "message": self._text(crash.message)}
        stage["longrepr"] = self._text(report.longrepr)
        attempts[-1][1].setdefault(report.when, stage)

    def pytest_runtest_logreport(self, report):
        if self._is_attempt(report):
            self._record(report)
        if report.failed and report.longrepr is not None:
            self._reported[(report.nodeid, report.when)] = report.longrepr

    @pytest.hookimpl(trylast=True)
    def pytest_exception_interact(self, node, call, report):
        """Keeps the text a plugin gave a failure after it was reported."""
        key = (getattr(report, "nodeid", None), getattr(report, "when", None))
        if key in self._reported and report.longrepr is not self._reported[key]:
            self._replaced[key] = self._text(report.longrepr)

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item, nextitem):
        yield
        self._retry_attempts(item)
        self._flaky_attempts(item)

    def _retry_attempts(self, item):
        """pytest-retry's attempts after the first, of which nothing was
        said, from the count in the item's stash."""
        retry = sys.modules.get("pytest_retry.retry_plugin")
        key = getattr(retry, "attempts_key", None)
        recorded = self._attempts.get(item.nodeid)
        if key is None or not recorded:
            return
        try:
            attempts = item.stash.get(key, None)
        except Exception:
            return
        if not isinstance(attempts, int):
            return
        _, first = recorded[0]
        for _ in range(attempts - 1 - len(recorded)):
            entry = {"nodeid": first["nodeid"], "lineno": first["lineno"], "outcome": "rerun"}
            entry["call"] = {"outcome": "rerun"}
            recorded.append((None, entry))

    def _flaky_attempts(self, item):
        """flaky's failed runs before the last, from its counts on the item,
        each with its error."""
        runs = item.__dict__.get("_flaky_current_runs")
        passes = item.__dict__.get("_flaky_current_passes")
        needed = item.__dict__.get("_flaky_min_passes")
        errors = item.__dict__.get("_flaky_current_errors") or []
        if not all(isinstance(n, int) for n in (runs, passes, needed)) or item.nodeid in self._attempts:
            return
        earlier = runs - passes - (1 if passes < needed else 0)
        location = getattr(item, "location", None) or (None, None, None)
        attempts = []
        for n in range(max(earlier, 0)):
            stage = {"outcome": "rerun"}
            try:
                value = errors[n][1] if isinstance(errors[n], tuple) else errors[n].value
                stage["crash"] = {"message": self._text("%s: %s" % (type(value).__name__, value))}
            except Exception:
                pass
            entry = {"nodeid": item.nodeid, "lineno": location[1], "outcome": "rerun", "call": stage}
            attempts.append((None, entry))
        if attempts:
            self._attempts[item.nodeid] = attempts

    def into_tests(self, tests):
        """The report's tests with each rewritten failure's text, and each
        test's failed attempts right before its own entry."""
        for test in tests:
            nodeid = test.get("nodeid") if isinstance(test, dict) else None
            for when in ("setup", "call", "teardown"):
                text = self._replaced.get((nodeid, when))
                stage = test.get(when)
                if text is not None and isinstance(stage, dict):
                    stage["longrepr"] = text
                    stage.pop("crash", None)
                    stage.pop("traceback", None)
        if not self._attempts:
            return tests
        with_attempts = []
        for test in tests:
            nodeid = test.get("nodeid") if isinstance(test, dict) else None
            with_attempts.extend(entry for _, entry in self._attempts.pop(nodeid, ()))
            with_attempts.append(test)
        return with_attempts
