import asyncio

import pytest
import pytest_asyncio

from feeds.fetch import fetch, fetch_all


@pytest_asyncio.fixture
async def news():
    feed = await fetch("news")
    yield feed
    await asyncio.sleep(0)


@pytest.mark.asyncio
async def test_fetch(news):
    assert news["items"] == 3


@pytest.mark.asyncio
async def test_fetch_all():
    feeds = await fetch_all(["a", "b"])
    assert [f["name"] for f in feeds] == ["a", "b"]


@pytest.mark.asyncio
async def test_fetch_nameless():
    await fetch_all(["a", ""])


@pytest.mark.asyncio
async def test_item_count(news):
    assert news["items"] == 4


def test_sync_still_runs():
    assert asyncio.run(fetch("x"))["name"] == "x"
