import numpy as np
import pandas as pd
import pytest

from warm_numpy.sales import (
    growth,
    monthly_units,
    moving_average,
    revenue_by_region,
    shares,
    table,
)

ROWS = [
    ("north", 1, 10, 2.0),
    ("north", 2, 12, 2.0),
    ("north", 3, 15, 2.0),
    ("south", 1, 5, 4.0),
    ("south", 2, 4, 4.0),
    ("south", 3, 6, 4.0),
    ("east", 1, 1, 10.0),
    ("east", 3, 2, 10.0),
]


@pytest.fixture
def sales():
    return table(ROWS)


def test_table_adds_revenue(sales):
    assert list(sales.columns) == ["region", "month", "units", "price", "revenue"]
    assert sales["revenue"].tolist() == [20.0, 24.0, 30.0, 20.0, 16.0, 24.0, 10.0, 20.0]


def test_revenue_by_region_largest_first(sales):
    totals = revenue_by_region(sales)
    assert totals.index.tolist() == ["north", "south", "east"]
    assert totals.tolist() == [74.0, 60.0, 30.0]


def test_monthly_units_fills_missing_months(sales):
    units = monthly_units(sales)
    assert units.loc[2, "east"] == 0
    assert units.loc[3].tolist() == [2, 15, 6]


def test_moving_average():
    np.testing.assert_allclose(moving_average([1, 2, 3, 4, 5], 2), [1.5, 2.5, 3.5, 4.5])


def test_moving_average_of_a_short_series_is_empty():
    assert moving_average([1, 2], 3).size == 0


def test_moving_average_refuses_an_empty_window():
    with pytest.raises(ValueError, match="window"):
        moving_average([1, 2, 3], 0)


def test_shares_sum_to_one():
    result = shares([1, 3, 4])
    np.testing.assert_allclose(result, [0.125, 0.375, 0.5])
    assert result.sum() == pytest.approx(1.0)


def test_shares_of_nothing_are_zero():
    assert shares([0, 0]).tolist() == [0.0, 0.0]


def test_growth_month_on_month(sales):
    result = growth(sales, "north")
    np.testing.assert_allclose(result.to_numpy(), [0.2, 0.25])
    assert result.index.tolist() == [2, 3]


def test_growth_of_an_unknown_region_is_empty(sales):
    assert isinstance(growth(sales, "west"), pd.Series)
    assert growth(sales, "west").empty
