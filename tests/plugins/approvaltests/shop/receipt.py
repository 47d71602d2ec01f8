def receipt(items):
    lines = [f"{name:<10}{price:>8.2f}" for name, price in items]
    total = sum(price for _, price in items)
    lines.append(f"{'TOTAL':<10}{total:>8.2f}")
    return "\n".join(lines) + "\n"


def stock(levels):
    return "".join(f"{name}: {n}\n" for name, n in sorted(levels.items()) if n)


def greeting(name):
    return f"Hello, {name}!\n"
