"""A few calculations over a table of sales, with numpy and pandas."""

import numpy as np
import pandas as pd

COLUMNS = ["region", "month", "units", "price"]


def table(rows):
    """A DataFrame of (region, month, units, price) rows, with revenue."""
    frame = pd.DataFrame(rows, columns=COLUMNS)
    frame["revenue"] = frame["units"] * frame["price"]
    return frame


def revenue_by_region(frame):
    """Total revenue per region, largest first (a Series)."""
    totals = frame.groupby("region")["revenue"].sum()
    return totals.sort_values(ascending=False)


def monthly_units(frame):
    """Units sold per month and region: months as rows, regions as columns."""
    return frame.pivot_table(
        index="month", columns="region", values="units", aggfunc="sum", fill_value=0
    )


def moving_average(values, window):
    """The mean of each `window` consecutive values (numpy array)."""
    if window < 1:
        raise ValueError("window must be at least 1")
    values = np.asarray(values, dtype=float)
    if window > len(values):
        return np.array([])
    kernel = np.ones(window) / window
    return np.convolve(values, kernel, mode="valid")


def shares(values):
    """Each value's share of the total, summing to 1 (numpy array)."""
    values = np.asarray(values, dtype=float)
    total = values.sum()
    if total == 0:
        return np.zeros_like(values)
    return values / total


def growth(frame, region):
    """Month-on-month growth of a region's revenue, as fractions."""
    series = frame[frame["region"] == region].set_index("month")["revenue"].sort_index()
    return series.pct_change().dropna()
