import pytest


@pytest.mark.owner("web")
def test_greeting(greeting):
    assert greeting == "hello"


def test_greeting_length(greeting):
    assert len(greeting) == 5
