"""Stock levels."""


class Stock:
    def __init__(self):
        self.levels = {}

    def add(self, name, qty):
        self.levels[name] = self.levels.get(name, 0) + qty

    def take(self, name, qty):
        if self.levels.get(name, 0) < qty:
            raise ValueError(f"not enough {name}")
        self.levels[name] -= qty
