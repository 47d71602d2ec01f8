"""The Python reference of benches/perf (report throughput): read a JUnit
XML file with junitparser (pinned in requirements-bench.txt) and visit every
test case and its results, as a report generator must. Prints the counts."""

import sys

from junitparser import JUnitXml, TestSuite

xml = JUnitXml.fromfile(sys.argv[1])
suites = [xml] if isinstance(xml, TestSuite) else list(xml)
cases = failed = skipped = 0
for suite in suites:
    for case in suite:
        cases += 1
        for result in case.result:
            kind = type(result).__name__
            if kind in ("Failure", "Error"):
                failed += 1
                _ = (result.message, result.text)
            elif kind == "Skipped":
                skipped += 1
                _ = result.message
        _ = (case.name, case.classname, case.time)
print(f"{cases} cases, {failed} failed or errors, {skipped} skipped")
