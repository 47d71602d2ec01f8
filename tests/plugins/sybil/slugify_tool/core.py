"""Turn titles into URL slugs."""

import re
import unicodedata


def slugify(text, sep="-"):
    """Lower-case ``text``, drop its accents and join its words with ``sep``.

    >>> slugify("Hello World")
    'hello-world'
    >>> slugify("  Many   spaces  ", sep="_")
    'many_spaces'
    """
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return sep.join(re.findall(r"[a-z0-9]+", plain.lower()))


def truncate(slug, limit, sep="-"):
    """Cut ``slug`` to at most ``limit`` characters, never inside a word.

    >>> truncate("the-quick-brown-fox", 20)
    'the-quick-brown-fox'
    >>> truncate("the-quick-brown-fox", 12)
    'the-quick'
    """
    return slug[:limit].rstrip(sep)
