"""Invoices, with four type errors."""


def line_total(price: float, quantity: int) -> int:
    return price * quantity


def invoice_total(lines: list[tuple[float, int]]) -> float:
    return sum(line_total(p, q) for p, q in lines)


def label(number: int) -> str:
    return number


def due(days: int = "30") -> int:
    return days


def print_invoice(number: int) -> None:
    print(label(str(number)))
