"""ISBN-10/13 validation."""


def normalize(isbn):
    return isbn.replace("-", "").replace(" ", "").upper()


def is_valid_isbn10(isbn):
    digits = normalize(isbn)
    if len(digits) != 10:
        return False
    total = 0
    for i, ch in enumerate(digits):
        value = 10 if ch == "X" and i == 9 else int(ch)
        total += (10 - i) * value
    return total % 11 == 0


def is_valid_isbn13(isbn):
    digits = normalize(isbn)
    if len(digits) != 13 or not digits.isdigit():
        return False
    total = sum(int(d) * (3 if i % 2 else 1) for i, d in enumerate(digits))
    return total % 10 == 0
