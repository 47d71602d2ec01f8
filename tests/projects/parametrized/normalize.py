"""Text normalisation helpers."""

import unicodedata


def fold(text):
    """Lower-case and strip accents: 'Café' -> 'cafe'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).lower()


def split_qualified(name):
    """Split 'pkg::mod::func' into its parts."""
    return name.split("::")


def collapse_spaces(text):
    return " ".join(text.split())
