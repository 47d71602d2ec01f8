import asyncio


class PriceError(Exception):
    pass


async def fetch_price(sku):
    await asyncio.sleep(0)
    if sku == "broken":
        raise ValueError("bad price")
    return 10


async def fetch_all(skus):
    async with asyncio.TaskGroup() as group:
        tasks = [group.create_task(fetch_price(sku)) for sku in skus]
    return [task.result() for task in tasks]


def validate(order):
    errors = []
    if order.get("qty", 0) <= 0:
        errors.append(ValueError("qty must be positive"))
    if "sku" not in order:
        errors.append(KeyError("sku"))
    if errors:
        raise ExceptionGroup("validation", errors)


def load_price(table, sku):
    try:
        return table[sku]
    except KeyError as e:
        raise PriceError(f"no price for {sku}") from e


def parse_price(text):
    try:
        return float(text)
    except ValueError:
        raise PriceError(f"unreadable price {text!r}")
