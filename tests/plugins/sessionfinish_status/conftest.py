import pytest


def pytest_sessionfinish(session, exitstatus):
    unmarked = [i for i in session.items if not list(i.iter_markers("owner"))]
    if unmarked and exitstatus == 0:
        session.exitstatus = 1


def pytest_configure(config):
    config.addinivalue_line("markers", "owner(name): the team that owns a test")


@pytest.fixture
def greeting():
    return "hello"
