"""coverage.py for a run with PYTEST_MCP_COVERAGE (`run --coverage`).

Started as this module is imported: pytest imports it as a plugin that
pytest_mcp_events names (`pytest_plugins`) as soon as that one is
registered, before any conftest.py or test module is imported. Saved when
pytest unconfigures: each process (an xdist worker too) writes its own data
file under the given path, with the project's own settings (.coveragerc,
setup.cfg, tox.ini, pyproject.toml); pytest-mcp combines them and judges
the change (docs/coverage.md).

coverage.py measures with one tracer at a time: a second Coverage started
pauses the one before it until it stops. Two plugins start their own:

- pytest-cov (`--cov`, often in the project's addopts) measures the whole
  run; ours, paused under it, would see no test. Ours stops before pytest-cov
  starts, and when pytest-cov has combined its data (its workers' too), that
  data is copied into ours: the project's reports stay exactly its own, and
  nothing is written into the project that it did not ask for. What it does
  not measure (a file outside its `--cov` sources, a test marked no_cover)
  is judged as not run.
- pytest-testmon (`--affected`) measures each test, pausing ours. It knows
  how to live under pytest-cov's measurement: it stops it, then hands it the
  lines each batch of tests ran. Ours is put where it looks for pytest-cov's,
  and gets the same.

Whatever coverage.py, pytest-cov or pytest-testmon do, nothing here raises
or prints: the run goes on, and at worst the change is judged on less data.
"""

import contextlib
import io
import os
import warnings

import pytest

_PATH = os.environ.get("PYTEST_MCP_COVERAGE")


def _start():
    """The measuring Coverage, or None without PYTEST_MCP_COVERAGE or
    coverage.py (pytest-mcp checks it is there before the run)."""
    if not _PATH:
        return None
    try:
        import coverage

        os.makedirs(os.path.dirname(_PATH), exist_ok=True)
        cov = coverage.Coverage(data_file=_PATH, data_suffix=True, config_file=True)
        _cheap_core(cov)
        cov.start()
        return cov
    except Exception:
        return None


def _cheap_core(cov):
    """sys.monitoring (Python 3.12 and newer) where the project chose no core
    and measures only lines: it costs a fraction of the C tracer, which is
    called for every frame, measured or not (coverage.py 7 uses it by
    default only from 3.14). Branches and dynamic contexts keep the tracer
    coverage.py would pick."""
    import sys

    config = cov.config
    plain = not (config.branch or config.timid or config.dynamic_context)
    if sys.version_info >= (3, 12) and config.core is None and plain:
        cov.set_option("run:core", "sysmon")


def _stop(cov):
    """Stops `cov`, silently: coverage.py prints its stack of measurements
    to stdout before failing when another one runs above this one."""
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            cov.stop()
    except Exception:
        pass


# Our Coverage while it measures this process; None without
# PYTEST_MCP_COVERAGE or coverage.py, or once pytest-cov measures instead.
_cov = _start()
# pytest-cov measures this run: its combined data is copied at the end.
_pytest_cov = False


def _pytest_cov_measures(early_config):
    """Whether pytest-cov will measure this process: as its own
    pytest_load_initial_conftests decides (`--cov` given, `--no-cov` not),
    and its workers' sessionstart after it."""
    options = early_config.known_args_namespace
    return bool(getattr(options, "cov_source", None)) and not getattr(options, "no_cov", False)


# An old-style wrapper, as pytest_mcp_events' are: any pytest and pluggy.
@pytest.hookimpl(hookwrapper=True)
def pytest_load_initial_conftests(early_config):
    """Before pytest-cov's (tryfirst) starts its Coverage, which would pause
    ours for the whole run: ours stops and leaves the measuring to it."""
    global _cov, _pytest_cov
    try:
        if _cov is not None and _pytest_cov_measures(early_config):
            cov, _cov, _pytest_cov = _cov, None, True
            _stop(cov)
    except Exception:
        pass
    yield


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    """After pytest-testmon configured itself: ours joins the stack of outer
    measurements it keeps (see the module's docstring)."""
    if _cov is None:
        return
    try:
        collect = config.pluginmanager.get_plugin("TestmonCollect")
        collector = getattr(collect, "testmon", None)
        stack = getattr(type(collector), "coverage_stack", None)
        if isinstance(stack, list) and getattr(collector, "cov", True) is None:
            stack.append(_UnderTestmon(_cov))
    except Exception:
        pass


def pytest_unconfigure(config):
    """Our data saved, or pytest-cov's copied as ours (by the controller
    under xdist: it combined its workers' data)."""
    global _cov
    if _cov is not None:
        cov, _cov = _cov, None
        _stop(cov)
        try:
            # What it measured, even when it could not be stopped; its
            # warnings (a source package never imported) are not the run's.
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                cov.save()
        except Exception:
            pass
    elif _pytest_cov and getattr(config, "workerinput", None) is None:
        try:
            _copy_pytest_cov(config)
        except Exception:
            pass


def _copy_pytest_cov(config):
    """pytest-cov's data for the run, once it combined it (its controller's
    Coverage is then the combining one), into our directory as one more
    data file. A run it did not finish (a collection error) measured no
    test: nothing is copied."""
    from coverage import CoverageData

    controller = getattr(config.pluginmanager.get_plugin("_cov"), "cov_controller", None)
    combined = getattr(controller, "combining_cov", None)
    if combined is None or getattr(controller, "cov", None) is not combined:
        return
    ours = CoverageData(basename=_PATH + ".pytestcov")
    ours.update(combined.get_data())
    ours.write()


class _Trace:
    """What pytest-testmon reads of coverage.py's decision on a file."""

    trace = False


class _UnderTestmon:
    """Our Coverage as pytest-testmon handles an outer measurement (as it
    does pytest-cov's): stopped while it measures tests, started again when
    it is done, given the lines of each batch of tests that our settings
    would have measured."""

    def __init__(self, cov):
        self._cov = cov

    def start(self):
        try:
            self._cov.start()
        except Exception:
            pass

    def stop(self):
        _stop(self._cov)

    def _should_trace(self, filename, frame):
        try:
            return self._cov._should_trace(filename, frame)
        except Exception:
            return _Trace()

    def get_data(self):
        return self

    def add_lines(self, lines):
        """The lines a batch ran, as data of the kind ours collects: with
        branch measuring on, each line as an arc into it, which reads back
        as the line run. Inside a test's hooks, where coverage.py's warnings
        (a source package not imported yet) would be the test's."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                data = self._cov.get_data()
            if self._cov.config.branch:
                data.add_arcs({f: [(-n, n) for n in ns] for f, ns in lines.items()})
            else:
                data.add_lines(lines)
        except Exception:
            pass
