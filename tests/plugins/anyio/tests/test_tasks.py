import anyio
import pytest

pytestmark = pytest.mark.anyio


async def double(x):
    await anyio.sleep(0)
    return 2 * x


async def test_double():
    assert await double(2) == 4


async def test_task_group():
    results = []

    async def work(x):
        results.append(await double(x))

    async with anyio.create_task_group() as tg:
        for x in range(3):
            tg.start_soon(work, x)
    assert sorted(results) == [0, 2, 4]


async def test_move_on_after():
    with anyio.move_on_after(0.01) as scope:
        await anyio.sleep(1)
    assert scope.cancelled_caught


async def test_fail_after():
    with anyio.fail_after(0.01):
        await anyio.sleep(1)


async def test_double_of_three():
    assert await double(3) == 5
