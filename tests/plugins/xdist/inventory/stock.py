class Stock:
    def __init__(self):
        self.items = {}

    def add(self, name, count):
        self.items[name] = self.items.get(name, 0) + count

    def take(self, name, count):
        left = self.items[name] - count
        if left < 0:
            raise ValueError(f"only {self.items[name]} {name} left")
        self.items[name] = left
