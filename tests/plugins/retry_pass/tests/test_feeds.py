import pytest

from feeds import fetch


def test_fetch_news():
    assert len(fetch("news")) == 2


def test_feed_name():
    assert "news".title() == "News"


@pytest.mark.slow
def test_fetch_every_feed():
    assert fetch("all")


@pytest.mark.slow
def test_fetch_archive():
    assert fetch("archive")


@pytest.mark.slow
def test_refresh_all():
    assert fetch("refresh")
