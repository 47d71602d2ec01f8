# Sybil as its documentation configures it: the examples of the .rst
# documents and of the modules' docstrings are tests.
from sybil import Sybil
from sybil.parsers.rest import DocTestParser, PythonCodeBlockParser

pytest_collect_file = Sybil(
    parsers=[DocTestParser(), PythonCodeBlockParser()],
    patterns=["*.rst", "*.py"],
).pytest()
