"""Amount parsing; rejects anything with a decimal comma."""

import os
import tempfile
import uuid


class Reader:
    def __init__(self, field):
        self.field = field
        # Where a real reader would spool its input: a different temporary
        # path on every run, as pytest's tmp_path and tempfile give.
        self.spool = os.path.join(
            tempfile.gettempdir(), f"ledger-{uuid.uuid4().hex[:8]}", f"spool-{field}.csv"
        )

    def __repr__(self):
        return f"<Reader object at {hex(id(self))}>"


def parse_amount(text, field=0):
    reader = Reader(field)
    cleaned = text.strip()
    if "," in cleaned:
        raise ValueError(
            f"cannot parse {cleaned!r} as an amount in field {field} "
            f"(reader at {hex(id(reader))}, spool {reader.spool})"
        )
    return round(float(cleaned) * 100)


def parse_line(line):
    return [parse_amount(part, field) for field, part in enumerate(line.split(";"))]
