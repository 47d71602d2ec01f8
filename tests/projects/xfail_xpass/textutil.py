"""String helpers with a few known bugs."""


def word_count(text):
    # Known bug: counts empty strings between double spaces.
    return len(text.split(" "))


def reverse_words(text):
    return " ".join(reversed(text.split()))


def truncate(text, width):
    if width < 0:
        raise ValueError("width must be >= 0")
    return text if len(text) <= width else text[: width - 1] + "…"
