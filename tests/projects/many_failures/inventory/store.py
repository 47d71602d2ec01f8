"""A small in-memory inventory used by the tests."""

from inventory.pricing import unit_price


class OutOfStock(Exception):
    pass


class Store:
    def __init__(self, stock=None):
        self.stock = dict(stock or {})

    def __repr__(self):
        return f"Store({self.stock!r})"

    def take(self, sku, qty):
        available = self.stock[sku]
        if qty > available:
            raise OutOfStock(f"only {available} of {sku!r} left, wanted {qty}")
        self.stock[sku] = available - qty
        return qty

    def order_total(self, lines):
        total = 0
        for sku, qty in lines:
            total += self.line_total(sku, qty)
        return total

    def line_total(self, sku, qty):
        return unit_price(sku) * qty

    def summary(self):
        return {sku: qty for sku, qty in sorted(self.stock.items()) if qty}
