import asyncio


async def fetch(name, delay=0.001):
    await asyncio.sleep(delay)
    if not name:
        raise LookupError("no feed named ''")
    return {"name": name, "items": 3}


async def fetch_all(names):
    return await asyncio.gather(*(fetch(n) for n in names))
