"""A minimal shopping cart."""

from decimal import Decimal


class Cart:
    def __init__(self):
        self.items = {}  # name -> (unit_price, quantity)
        self.coupon = None

    def __repr__(self):
        return f"<Cart with {self.count()} item(s)>"

    def add(self, name, price, quantity=1):
        if quantity <= 0:
            raise ValueError("quantity must be positive")
        _, current = self.items.get(name, (price, 0))
        self.items[name] = (Decimal(str(price)), current + quantity)

    def remove(self, name):
        del self.items[name]

    def count(self):
        return sum(qty for _, qty in self.items.values())

    def subtotal(self):
        return sum((price * qty for price, qty in self.items.values()), Decimal("0"))

    def apply_coupon(self, code):
        if code != "SAVE10":
            raise ValueError(f"unknown coupon: {code}")
        self.coupon = code

    def total(self):
        subtotal = self.subtotal()
        if self.coupon == "SAVE10":
            # Bug: the discount is applied as an absolute 10 instead of 10 %.
            subtotal -= Decimal("10")
        return subtotal
