def restock(levels, item, amount):
    levels[item] = levels.get(item, 0) + amount
    return levels


def low(levels, threshold=5):
    return sorted(name for name, count in levels.items() if count < threshold)
