from approvaltests import set_default_reporter
from approvaltests.reporters import PythonNativeReporter


def pytest_configure(config):
    set_default_reporter(PythonNativeReporter())
