import pytest

SESSION = {}


@pytest.mark.dependency()
def test_login():
    SESSION["user"] = "ada"
    token = SESSION.get("token")
    assert token is not None, "login returned no token"


@pytest.mark.dependency(depends=["test_login"])
def test_profile():
    assert SESSION["user"] == "ada"


@pytest.mark.dependency(depends=["test_login"])
def test_logout():
    SESSION.clear()


@pytest.mark.dependency()
def test_catalog():
    assert ["apple", "pear"]


@pytest.mark.dependency(depends=["test_catalog"])
def test_search():
    assert "pear" in ["apple", "pear"]
