from warm_edits.calc import answer


def test_answer():
    assert answer() == 42


def test_greeting(greeting):
    assert greeting == "hello"


def test_edited():
    assert "before" == "before"


def check_extra():
    assert "collected only under python_functions = check_*" == ""


def test_environment():
    import os

    assert os.environ.get("WARM_EDITS_VALUE", "one") == "one"
