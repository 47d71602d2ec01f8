import logging
import sys

from report import status_line, summarize


def test_prints_to_stdout_and_fails():
    results = {"disk": True, "network": False}
    print("running checks:", ", ".join(results))
    print("second line of stdout")
    assert summarize(results)["failed"] == 0


def test_writes_to_stderr_and_fails():
    sys.stderr.write("warning: cache directory missing\n")
    assert summarize({"cache": False}) == {"total": 1, "failed": 0}


def test_logs_warning_and_fails():
    logging.getLogger("report.tests").warning("disk usage at %d%%", 97)
    assert 97 < 90


def test_prints_but_passes():
    print("this output belongs to a passing test")
    assert summarize({"ok": True}) == {"total": 1, "failed": 0}


def test_ansi_colored_output_fails():
    line = status_line("database", False)
    print(line)
    assert "OK" in line
