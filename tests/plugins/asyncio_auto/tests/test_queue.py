import asyncio


async def test_next(jobs):
    assert await jobs.next() == "first"


async def test_fifo(jobs):
    await jobs.submit("second")
    assert [await jobs.next(), await jobs.next()] == ["first", "second"]


async def test_next_on_empty_queue(jobs):
    await jobs.next()
    await jobs.next()


async def test_submit_many(jobs):
    await asyncio.gather(*(jobs.submit(i) for i in range(3)))
    assert jobs.queue.qsize() == 3


def test_plain_function_still_runs():
    assert Jobs_is_importable()


def Jobs_is_importable():
    from app.queue import Jobs

    return Jobs is not None
