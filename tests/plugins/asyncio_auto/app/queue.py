import asyncio


class Jobs:
    def __init__(self):
        self.queue = asyncio.Queue()

    async def submit(self, job):
        await self.queue.put(job)

    async def next(self, timeout=0.05):
        return await asyncio.wait_for(self.queue.get(), timeout)
