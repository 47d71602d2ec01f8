"""Stock levels."""


class Stock:
    def __init__(self):
        self.levels = {}
        self.held = {}

    def add(self, name, qty):
        self.levels[name] = self.levels.get(name, 0) + qty

    def take(self, name, qty):
        if self.levels.get(name, 0) < qty:
            raise ValueError(f"not enough {name}")
        self.levels[name] -= qty

    def hold(self, name, qty):
        """Set qty of name aside for an order."""
        self.take(name, qty)
        self.held[name] = self.held.get(name, 0) + qty

    def release(self, name, qty):
        raise NotImplementedError
