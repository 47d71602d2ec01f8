"""pytest-mcp's event log: a pytest plugin loaded from pytest-mcp's private
temporary directory for one run (`-p pytest_mcp_events`); nothing is installed.

It appends JSON objects, one per line, to the file named by PYTEST_MCP_EVENTS,
so that progress can be reported while tests run, and so that after a timeout
or a crash (when neither the JUnit XML nor the JSON report was written)
pytest-mcp still knows which tests finished, how, and which test was running.
With PYTEST_MCP_ITEMS set it also lists the collected items (for discovery).

Cost matters (it runs once per test, see BENCHMARKS.md): each test costs one
unbuffered write on an O_APPEND descriptor, made when the test starts: the
phase reports and the "finish" line of the test before it, then its own
"start" line, so a hang or a crash still names the running test. The finish
of a test is written at once when it is the last one, when the session is
stopping, or when other tests are still running (xdist); otherwise it waits
for the next start, or the end of the session, whichever comes first. The
phases that passed (most of them) are one "passed" line with their summed
duration, and of it the setup's and the teardown's seconds (to the
microsecond: what a plan of shards needs to count a module's shared setup
once, when no JSON report times the phases); the others are recorded in
full. Test ids are encoded with the C string encoder json.dumps itself uses
for a string (same text).

The log starts with a "begin" line, written when this module is imported,
and ends with an "end" line, written when pytest unconfigures: pytest's exit
status, the session's duration as pytest's closing line measures it, and
what stopped the session early (pytest.exit, Ctrl-C). A log with no "end"
is a process that ended before its session did, whatever ended it
(os._exit, a signal, a plugin). The "collected" line names the collected
tests in their order, so that the tests such a run never reached can be
named too.

Under pytest-xdist (`-n`) the plugin is loaded in the controller and in
every worker, all writing to the one log (each line is one O_APPEND write).
A worker writes only its "start" lines, with its id ("worker": "gw0"), at
the moment its test starts; the controller writes everything else, from the
reports the workers send it (the same ones pytest-json-report and the JUnit
XML see): when the first worker has collected, the count and the ids in
collection order; then the phase reports and each "finish". So after a kill
the log names the test running on each worker. A test whose worker crashed
is finished by the report xdist makes for it (`when` "???"), which has no
logfinish. A run that -x or --maxfail stopped ends with a "maxfail" line
(xdist exits 2 then, pytest alone 1). The workers narrow the items for
PYTEST_MCP_LAST_FAILED (they collect; the controller does not) and the
controller reports what the cache did.

Before a run changes pytest's cache, the process that collects (pytest
alone, or the first xdist worker) writes a "lastrun" line: the ids the cache
recorded as failing last time, and which of them this run would have
collected and did not (renamed or deleted), so that pytest-mcp can say what
changed since the last run. With PYTEST_MCP_AFFECTED it writes an
"affected" line: what pytest-testmon selected (see _affected).

With PYTEST_MCP_JSON_REPORT set, pytest-mcp runs pytest-json-report with
`--json-report-file=none --json-report-omit collectors keywords traceback`
and this plugin writes the report to that path itself, in
pytest_json_modifyreport (the plugin's documented hook), with json.dumps
(the C encoder; pytest-json-report's json.dump runs the pure-Python one).
The collectors pytest-mcp reads, the failed and skipped ones, are put back.

Beside this module: pytest_mcp_attempts (each failed attempt of a test run
again, and a failure's text a plugin rewrote, put back in the JSON report;
the attempts go to the event log as failures do) and pytest_mcp_measure
(coverage.py for `run --coverage`).

Subtests (pytest's `subtests` fixture, unittest's `self.subTest`) are
reported one by one, each a report of its test's id with the subtest's
`context` (its msg and keyword arguments); pytest-json-report writes each
over the test's call phase, so only the test's own is left ("contains 2
failed subtests"). This plugin keeps each failed subtest (msg, kwargs,
crash, longrepr, captured output) and puts the list in the test's entry
under "subtests". unittest's subtests are logged while the test's output
is being captured, so the terminal's progress letter for each ("u") would
land in the test's captured stdout: they are logged with capture
suspended, as pytest does for its fixture's.
"""

import json
import linecache
import os
import time

import pytest
from pytest_mcp_attempts import Attempts

_PATH = os.environ.get("PYTEST_MCP_EVENTS")
_ITEMS = bool(os.environ.get("PYTEST_MCP_ITEMS"))
_JSON_REPORT = os.environ.get("PYTEST_MCP_JSON_REPORT")
_LAST_FAILED = bool(os.environ.get("PYTEST_MCP_LAST_FAILED"))
_AFFECTED = bool(os.environ.get("PYTEST_MCP_AFFECTED"))
_MAX_TEXT = 20000
_fd = None
# json.dumps(text, ensure_ascii=False) for a str, without building an encoder.
_enc = getattr(json.encoder, "c_encode_basestring", None) or json.encoder.encode_basestring
# Seconds of the phases that passed, per test running now: [setup, call,
# teardown].
_passed = {}
# Records of the phases that did not pass, per test running now.
_records = {}
# Finished tests' lines not yet written: they go with the next start.
_held = ""
# Tests started and not finished; tests collected; the session.
_running = 0
_left = None
_session = None
# Failed and skipped collectors, in pytest-json-report's shape.
_collectors = []
# pytest_mcp_attempts.Attempts, when this process writes the JSON report.
_attempts = None
# Failed subtests, in pytest-json-report's shape, per test: [entry], in the
# order they failed. Past _MAX_SUBTESTS a test's entries lose their texts.
_subtests = {}
_MAX_SUBTESTS = 100
# Under pytest-xdist: this worker's id ("gw0"), or whether this is the
# controller (known from the session's start).
_worker = None
_controller = False
_config = None
# The controller heard of a worker's collection (only the first counts).
_collection_heard = False
# When this process's session started (time.perf_counter), for the
# session's duration when pytest's terminal does not say it.
_started = None
# What stopped the session early (pytest.exit, KeyboardInterrupt), if anything.
_interrupt = None


def _write(text):
    global _fd
    if not _PATH:
        return
    try:
        if _fd is None:
            _fd = os.open(_PATH, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        data = text.encode("utf-8", "replace")
        while data:
            data = data[os.write(_fd, data):]
    except OSError:
        pass


def _begin():
    """The "begin" line, written as this module is imported (before any
    conftest.py runs a test): with no "end" line after it, the process
    ended before its session did (os._exit, a signal), whatever ended it.
    pytest-xdist's workers import it too and write nothing."""
    if os.environ.get("PYTEST_XDIST_WORKER") is None:
        _write('{"event": "begin"}\n')


def _line(record):
    return json.dumps(record, ensure_ascii=False, default=str) + "\n"


def _emit(record):
    if _worker is None:
        _write(_line(record))


_begin()

# coverage.py, with PYTEST_MCP_COVERAGE: pytest_mcp_measure, imported (so measuring)
# as this plugin is registered, before any conftest.py; a plugin for its hooks.
pytest_plugins = ["pytest_mcp_measure"]


def _text(value):
    text = str(value)
    if len(text) > _MAX_TEXT:
        half = _MAX_TEXT // 2
        text = text[:half] + "\n[...]\n" + text[-half:]
    return text


# Last: pytest-testmon has configured itself by then (for _affected).
@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    global _worker, _config
    _config = config
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        _worker = str(workerinput.get("workerid", "?"))
    if _AFFECTED and _worker is None and not _ITEMS:
        _affected(config)
    config.pluginmanager.register(_SubtestCapture(config), "pytest_mcp_subtest_capture")
    if _JSON_REPORT and _worker is None:
        global _attempts
        _attempts = Attempts(_text, lambda report: _subtest_context(report) is not None)
        config.pluginmanager.register(_attempts, "pytest_mcp_attempts")


def _subtest_context(report):
    """A subtest report's context (msg and kwargs), or None for a test's
    own report: pytest's SubtestReport, pytest-subtests' SubTestReport."""
    context = getattr(report, "context", None)
    if context is None or not hasattr(context, "kwargs"):
        return None
    return context


class _SubtestCapture:
    """Logs subtest reports with the test's capture suspended (see the
    module's docstring): unittest's are logged while it is on."""

    def __init__(self, config):
        self._capman = config.pluginmanager.getplugin("capturemanager")

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_logreport(self, report):
        disabled = getattr(self._capman, "global_and_fixture_disabled", None)
        if disabled is None or _subtest_context(report) is None:
            yield
            return
        with disabled():
            yield


def _repr(value):
    if isinstance(value, str):
        # pytest 9 gives each value as its saferepr already.
        return _text(value)
    try:
        return _text(repr(value))
    except Exception:
        return "<unrepresentable>"


def _subtest(report, context):
    """Keeps a failed subtest as an entry of its test's "subtests"."""
    entries = _subtests.setdefault(report.nodeid, [])
    msg = getattr(context, "msg", None)
    kwargs = getattr(context, "kwargs", None) or {}
    try:
        params = {str(k): _repr(v) for k, v in dict(kwargs).items()}
    except Exception:
        params = {}
    entry = {"msg": None if msg is None else _text(msg), "kwargs": params}
    entry["duration"] = getattr(report, "duration", None)
    crash = getattr(report.longrepr, "reprcrash", None)
    if crash is not None:
        entry["crash"] = {"path": str(crash.path), "lineno": crash.lineno, "message": _text(crash.message)}
    if len(entries) < _MAX_SUBTESTS:
        if report.longrepr is not None:
            entry["longrepr"] = _text(report.longrepr)
        for key, value in (
            ("stdout", getattr(report, "capstdout", "")),
            ("stderr", getattr(report, "capstderr", "")),
            ("log", getattr(report, "caplog", "")),
        ):
            if value:
                entry[key] = _text(value)
    entries.append(entry)


def _affected(config):
    """With PYTEST_MCP_AFFECTED (pytest-mcp passes --testmon-forceselect):
    the "affected" record, pytest-testmon's selection. It runs the tests
    whose recorded code changed and the ones that failed last time, and
    leaves the others out, most without collecting their files: those
    within this run's paths are counted here, from its own list. When its
    selection is off (`--no-testmon` in the project's options, ...), the
    run stops at once with a usage error and the reason, which pytest-mcp
    turns into a refusal of `affected`."""
    tm_conf = getattr(config, "testmon_config", None)
    select = config.pluginmanager.get_plugin("TestmonSelect")
    data = getattr(config, "testmon_data", None)
    if tm_conf is None or not tm_conf.select or select is None or data is None:
        reason = str(getattr(tm_conf, "message", "") or "pytest-testmon is not loaded")
        pytest.exit("pytest-mcp: affected needs pytest-testmon's selection: " + reason, returncode=4)
    scope = _scope(config)
    left_out = sum(1 for nodeid in select.deselected_tests if _in_scope(nodeid, scope))
    _write(_line({"event": "affected", "new_db": bool(data.new_db),
                  "packages_changed": bool(data.system_packages_change), "left_out": left_out}))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session):
    global _controller, _session, _started
    _controller = session.config.pluginmanager.has_plugin("dsession")
    _session = session
    _started = time.perf_counter()


def pytest_collectreport(report):
    if _worker is not None:
        # The controller hears of failed collectors from every worker.
        return
    if report.failed:
        _emit({"event": "collecterror", "nodeid": report.nodeid, "longrepr": _text(report.longrepr)})
    if _JSON_REPORT and (report.failed or report.skipped):
        collector = {"nodeid": report.nodeid, "outcome": report.outcome, "result": []}
        if report.longrepr:
            collector["longrepr"] = str(report.longrepr)
        _collectors.append(collector)


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


def _cache_off(config):
    return config.pluginmanager.get_plugin("lfplugin") is None or getattr(config, "cache", None) is None


def _cache_record(config, selected):
    """What pytest's cache of failures did, as a "lastfailed" record (None
    when there is nothing to say: the cache is on and no rerun was asked)."""
    if _cache_off(config):
        return {"event": "lastfailed", "enabled": False, "asked": _LAST_FAILED}
    if not _LAST_FAILED:
        return None
    recorded = len(config.cache.get("cache/lastfailed", {}))
    cachedir = getattr(config.cache, "_cachedir", None)
    exists = cachedir is None or os.path.isdir(str(cachedir))
    return {"event": "lastfailed", "enabled": True, "asked": True, "recorded": recorded,
            "selected": selected, "cache_exists": exists}


def _last_failed(session):
    """What pytest's cache of failures did. With PYTEST_MCP_LAST_FAILED
    (pytest-mcp passes `--last-failed --last-failed-no-failures=none`), a
    run that would rerun anything but recorded failures runs nothing
    instead: pytest itself runs every selected test when none of the
    recorded failures is among them, and ignores `--lf` when
    `-p no:cacheprovider` is in addopts."""
    config = session.config
    if _LAST_FAILED:
        if _cache_off(config):
            keep = set()
        else:
            # The plugin's own copy, where failed collectors that collect
            # now are replaced by their items.
            lf = config.pluginmanager.get_plugin("lfplugin")
            known = {str(k) for k in getattr(lf, "lastfailed", {})}
            keep = {item.nodeid for item in session.items if item.nodeid in known}
        if len(keep) != len(session.items):
            config.hook.pytest_deselected(items=[i for i in session.items if i.nodeid not in keep])
            session.items[:] = [i for i in session.items if i.nodeid in keep]
    record = _cache_record(config, len(session.items))
    if record is not None:
        _emit(record)


def _last_run_failures(config):
    """pytest's record of the last run's failures (`cache/lastfailed`),
    read before this run rewrites it at its end; None when there is no
    record to compare with: the cache is off (`-p no:cacheprovider`), has
    no run yet, or cannot be written (a read-only tree: its record would go
    stale and every later run would be compared with the same old one)."""
    cache = getattr(config, "cache", None)
    if cache is None or config.getoption("collectonly", False):
        return None
    cachedir = getattr(cache, "_cachedir", None)
    if cachedir is None or not os.path.isdir(str(cachedir)):
        return None
    for path in (str(cachedir), os.path.join(str(cachedir), "v", "cache")):
        if os.path.exists(path) and not os.access(path, os.W_OK):
            return None
    failed = cache.get("cache/lastfailed", None)
    if not isinstance(failed, dict):
        # pytest writes `nodeids` after every run and `lastfailed` only
        # when it changes: no `lastfailed` beside `nodeids` is a run that
        # passed.
        if cache.get("cache/nodeids", None) is None:
            return None
        failed = {}
    return [str(k) for k in failed]


def _scope(config):
    """This run's paths and ids as node-id prefixes relative to the rootdir
    ("" for everything): what the run would collect."""
    root = str(config.rootpath)
    here = str(config.invocation_params.dir)
    scope = []
    for arg in config.args:
        path, sep, rest = str(arg).partition("::")
        rel = os.path.relpath(os.path.normpath(os.path.join(here, path)), root).replace(os.sep, "/")
        if rel == ".":
            return [""]
        scope.append(rel + sep + rest)
    return scope


def _in_scope(nodeid, scope):
    return any(s == "" or nodeid == s or nodeid.startswith((s + "::", s + "/")) for s in scope)


def _last_run(config, items):
    """The "lastrun" record: the last run's failures, and those of them
    this run would collect and did not (renamed or deleted: within its
    paths, in a file it collected or one that is gone). Made from every
    item collected, before -k, -m or --lf deselect any: a deselected test
    is not gone. Files the run did not collect (ignored, not test files)
    say nothing."""
    failed = _last_run_failures(config)
    if failed is None:
        return None
    ids = set()
    by_file = {}
    for item in items:
        ids.add(item.nodeid)
        by_file.setdefault(item.nodeid.split("::", 1)[0], []).append(item.nodeid)
    scope = _scope(config)
    root = str(config.rootpath)
    missing = []
    for nodeid in failed:
        if nodeid in ids or not _in_scope(nodeid, scope):
            continue
        path = nodeid.split("::", 1)[0]
        if path in by_file:
            if not any(i.startswith(nodeid + "::") for i in by_file[path]):
                missing.append(nodeid)
        elif not os.path.exists(os.path.join(root, path)):
            missing.append(nodeid)
    _forget(config, missing)
    workeroutput = getattr(config, "workeroutput", None)
    if workeroutput is not None:
        # The xdist controller writes the cache: it forgets them too.
        workeroutput["pytest_mcp_missing"] = missing
    return {"event": "lastrun", "failed": failed, "missing": missing}


def _forget(config, missing):
    """Takes renamed and deleted tests out of pytest's record of failures,
    which would otherwise keep them for ever: the next run would call them
    gone again."""
    lf = config.pluginmanager.get_plugin("lfplugin")
    lastfailed = getattr(lf, "lastfailed", None)
    if isinstance(lastfailed, dict) and missing:
        # Keys are strings, or NodeId objects (pytest 9).
        gone = set(missing)
        for key in [k for k in lastfailed if str(k) in gone]:
            lastfailed.pop(key, None)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    missing = getattr(node, "workeroutput", {}).get("pytest_mcp_missing")
    if missing and _config is not None:
        _forget(_config, missing)


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    # The process that collects writes it: pytest alone, or the first
    # xdist worker (every worker collects the same; the controller none).
    if _PATH and not _ITEMS and _worker in (None, "gw0"):
        try:
            record = _last_run(config, items)
        except Exception:  # a record we cannot make is no reason to fail the run
            record = None
        if record is not None:
            _write(_line(record))
    order = {item.nodeid: i for i, item in enumerate(items)} if _AFFECTED else None
    yield
    if order is not None:
        # pytest-testmon runs the quickest first; the answer lists tests in
        # collection order, as every other run's.
        items.sort(key=lambda item: order.get(item.nodeid, len(order)))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_finish(session):
    global _left, _session
    _last_failed(session)
    _left = len(session.items)
    _session = session
    if _ITEMS:
        _emit({"event": "collected", "count": len(session.items)})
    else:
        # The ids too: after a crash, the tests that never ran are named.
        _emit({"event": "collected", "count": len(session.items), "ids": [i.nodeid for i in session.items]})
    if not _ITEMS or _worker is not None:
        return
    lines = []
    for item in session.items:
        path, lineno, _ = item.location
        own = item.nodeid.split("::", 1)[0]
        if os.path.normpath(path) != os.path.normpath(own):
            # A test a plugin made in a file of its own (pytest-bdd's
            # scenarios live in pytest_bdd/scenario.py): that file's line
            # is no line of the test's file.
            path, lineno = own, None
        module = getattr(item, "module", None)
        cls = getattr(item, "cls", None)
        lines.append(_line({
            "event": "item",
            "nodeid": item.nodeid,
            "file": path,
            "line": None if lineno is None else _def_line(item, lineno + 1),
            "module": getattr(module, "__name__", None),
            "class": getattr(cls, "__name__", None),
            "function": getattr(item, "originalname", None) or item.name,
        }))
    _write("".join(lines))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node, ids):
    """On the xdist controller, which collects nothing: the first worker's
    collection is the count (xdist runs the tests only when every worker
    collected the same)."""
    global _collection_heard
    if _collection_heard or _config is None:
        return
    _collection_heard = True
    record = _cache_record(_config, len(ids))
    text = _line(record) if record is not None else ""
    # The ids too: the workers finish tests in no fixed order, and
    # pytest-mcp puts the results back in this one.
    _write(text + _line({"event": "collected", "count": len(ids), "ids": list(ids)}))


def pytest_runtest_logstart(nodeid, location):
    global _held, _running
    if not _PATH:
        return
    if _worker is not None:
        _write('{"event": "start", "nodeid": %s, "worker": %s}\n' % (_enc(nodeid), _enc(_worker)))
        return
    _running += 1
    # The controller's start lines come from its workers.
    text = _held if _controller else _held + '{"event": "start", "nodeid": %s}\n' % _enc(nodeid)
    _held = ""
    _write(text)


def pytest_runtest_logreport(report):
    if _JSON_REPORT and _worker is None and report.failed:
        context = _subtest_context(report)
        if context is not None:
            _subtest(report, context)
    if not _PATH or _worker is not None:
        return
    nodeid = report.nodeid
    seconds = _passed.get(nodeid)
    if seconds is None:
        seconds = _passed[nodeid] = [0.0, 0.0, 0.0]
    if report.passed and not hasattr(report, "wasxfail"):
        # Most phases: nothing to keep but the time.
        duration = getattr(report, "duration", None)
        if isinstance(duration, (int, float)):
            when = report.when
            seconds[0 if when == "setup" else 2 if when == "teardown" else 1] += duration
        return
    record = {
        "event": "report",
        "nodeid": nodeid,
        "when": report.when,
        "outcome": report.outcome,
        "duration": getattr(report, "duration", None),
    }
    if hasattr(report, "wasxfail"):
        record["wasxfail"] = _text(report.wasxfail)
    if report.outcome == "rerun":
        # pytest-rerunfailures' failed attempt: which one, counted from 0.
        record["rerun"] = getattr(report, "rerun", None)
    # Failed, skipped, or a retrying plugin's word ("rerun", "retried").
    if not report.passed:
        record["longrepr"] = _text(report.longrepr)
        crash = getattr(report.longrepr, "reprcrash", None)
        if crash is not None:
            record["message"] = _text(crash.message)
    _records.setdefault(nodeid, []).append(record)
    if report.when == "???":
        # xdist's report for the test a crashed worker was running: no
        # logfinish follows.
        pytest_runtest_logfinish(nodeid, None)


def pytest_runtest_logfinish(nodeid, location):
    global _held, _running, _left
    if not _PATH or _worker is not None:
        return
    _running -= 1
    if _left is not None:
        _left -= 1
    records = _records.pop(nodeid, None)
    passed = _passed.pop(nodeid, None)
    quoted = _enc(nodeid)
    lines = "".join(_line(r) for r in records) if records else ""
    if passed is not None:
        # The phases that passed: one line with their time, and the setup's
        # and the teardown's part of it (%.6f: shorter and quicker than %r).
        setup, call, teardown = passed
        lines += (
            '{"event": "report", "nodeid": %s, "when": "call", "outcome": "passed", "duration": %r, '
            '"setup": %.6f, "teardown": %.6f}\n'
        ) % (quoted, setup + call + teardown, setup, teardown)
    if records and any(r["outcome"] == "rerun" for r in records):
        # pytest-rerunfailures runs this test again: an attempt, not a test done.
        _held += lines + '{"event": "finish", "nodeid": %s, "rerun": true}\n' % quoted
    else:
        _held += lines + '{"event": "finish", "nodeid": %s}\n' % quoted
    session = _session
    if _running > 0 or _left is None or _left <= 0 or (
        session is not None and (session.shouldstop or session.shouldfail)
    ):
        _flush()


def _flush():
    global _held
    if _held:
        text, _held = _held, ""
        _write(text)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    global _held
    if _controller and exitstatus == 2:
        # pytest-xdist ends a run that -x or --maxfail stopped as
        # interrupted (exit status 2); pytest alone exits 1.
        dsession = session.config.pluginmanager.get_plugin("dsession")
        maxfail = getattr(dsession, "maxfail", 0) or 0
        failures = getattr(dsession, "countfailures", 0) or 0
        if maxfail and failures >= maxfail:
            _held += _line({"event": "maxfail", "failures": failures})
    _flush()


def pytest_keyboard_interrupt(excinfo):
    """pytest.exit() or Ctrl-C stopped the session: what said so."""
    global _interrupt
    try:
        _interrupt = "%s: %s" % (excinfo.typename, getattr(excinfo.value, "msg", None) or excinfo.value)
    except Exception:
        _interrupt = "interrupted"


def _session_seconds(config):
    """The session's duration as pytest's closing line measures it (its
    terminal's start of the session to now), else from this plugin's own
    start of the session; None when no session started."""
    terminal = config.pluginmanager.get_plugin("terminalreporter")
    start = getattr(terminal, "_session_start", None)
    try:
        if start is not None and hasattr(start, "elapsed"):
            return start.elapsed().seconds
        start = getattr(terminal, "_sessionstarttime", None)
        if isinstance(start, float):
            from _pytest import timing

            return timing.time() - start
    except Exception:
        pass
    return None if _started is None else time.perf_counter() - _started


def pytest_unconfigure(config):
    _flush()
    # The "end" line: the session ran to its end (see _begin), with
    # pytest's exit status and its duration.
    session = _session
    record = {
        "event": "end",
        "exitstatus": None if session is None else int(getattr(session, "exitstatus", 0) or 0),
        "duration": _session_seconds(config),
    }
    if _interrupt is not None:
        record["interrupt"] = _text(_interrupt)
    _emit(record)


@pytest.hookimpl(optionalhook=True, trylast=True)
def pytest_json_modifyreport(json_report):
    if not _JSON_REPORT or _worker is not None:
        return
    # Said so that a reader knows every failed attempt is here (pytest's
    # JUnit, read beside it, writes a case per teardown: the flaky
    # package's passing runs look like failed attempts there). Not under
    # pytest-xdist: its workers run the tests, and the counts pytest-retry
    # and flaky keep on an item stay there.
    if not _controller:
        json_report["pytest_mcp"] = {"attempts": True}
    if _collectors:
        json_report["collectors"] = _collectors
    tests = json_report.get("tests")
    if _subtests and isinstance(tests, list):
        for test in tests:
            nodeid = test.get("nodeid") if isinstance(test, dict) else None
            failed = _subtests.pop(nodeid, None)
            if failed:
                test["subtests"] = failed
    if _attempts is not None and isinstance(tests, list):
        json_report["tests"] = _attempts.into_tests(tests)
    try:
        text = json.dumps(json_report, default=str)
        with open(_JSON_REPORT, "w", encoding="utf-8") as f:
            f.write(text)
    except (OSError, TypeError, ValueError):
        pass
