import pytest

from app.queue import Jobs


@pytest.fixture
async def jobs():
    jobs = Jobs()
    await jobs.submit("first")
    yield jobs
