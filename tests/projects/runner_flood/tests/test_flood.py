"""A failing test that prints about 30 MB to stdout.

pytest shows the captured output of a failing test in its terminal report,
the JUnit XML and the JSON report, so pytest-mcp receives it three times.
Its memory must stay bounded and its answer small, saying what it dropped.
"""

LINES = 300_000
LINE = "x" * 99


def test_prints_thirty_megabytes():
    for i in range(LINES):
        print(LINE)
    assert False, "flood finished"


def test_quiet():
    assert True
