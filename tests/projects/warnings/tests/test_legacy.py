from legacy import fetch, old_fetch


def test_fetch_with_timeout():
    assert fetch("https://example.org", timeout=5)["timeout"] == 5


def test_fetch_default_timeout_warns():
    assert fetch("https://example.org")["timeout"] == 30


def test_old_fetch_still_works():
    assert old_fetch("https://example.org")["timeout"] == 10


def test_both_warnings():
    assert fetch("https://example.com")["url"] == "https://example.com"
    assert old_fetch("https://example.com")["url"] == "https://example.com"
