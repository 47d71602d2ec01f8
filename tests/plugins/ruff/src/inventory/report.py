"""A stock report, with four findings of ruff's default rules."""

import os


def summary(levels, notes=[]):
    title = f"Stock report"
    notes.append(title)
    return f"{title}: {total(levels)} units"
