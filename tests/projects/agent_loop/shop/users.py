def display_name(first, last):
    return f"{first} {last}".strip()


def initials(first, last):
    return (first[:1] + last[:1]).upper()
