"""A failing test whose output is not valid UTF-8.

Raw bytes reach pytest-mcp three ways: written past pytest's capture straight
to the process's stdout, captured by pytest and put into its reports, and in
the failure message (a string holding a lone surrogate, which pytest writes
into the report files and the terminal).
"""

import sys

BAD = b"caf\xe9 \xff\xfe \xc3\x28 end"


def test_passes():
    assert True


def test_writes_invalid_utf8(capfd):
    with capfd.disabled():
        sys.stdout.buffer.write(b"RAW-STDOUT: " + BAD + b"\n")
        sys.stdout.buffer.flush()
    sys.stdout.buffer.write(b"CAPTURED-STDOUT: " + BAD + b"\n")
    sys.stdout.buffer.flush()
    message = BAD.decode("utf-8", "surrogateescape")
    assert message == "cafe", "REPORT-LINE: " + message
