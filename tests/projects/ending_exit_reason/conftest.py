"""A gate the way pytest-cov's --cov-fail-under works, without pytest-cov:
every test passes, the terminal summary says why the run fails, and pytest
exits 1."""

GATE = "FAIL Required test coverage of 90% not reached. Total coverage: 75.00%"


def pytest_terminal_summary(terminalreporter):
    terminalreporter.write_sep("-", "coverage: platform linux")
    terminalreporter.write_line("Name             Stmts   Miss  Cover")
    terminalreporter.write_line("------------------------------------")
    terminalreporter.write_line("shop/cart.py        12      3    75%")
    terminalreporter.write_line("------------------------------------")
    terminalreporter.write_line("TOTAL               12      3    75%")
    terminalreporter.write_line(GATE)


def pytest_sessionfinish(session):
    session.exitstatus = 1
