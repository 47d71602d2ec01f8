"""One function of many parametrizations, beside plain tests and a class:
the shape `discover` must answer in a few lines (tests/discovery.rs)."""

import pytest


def test_empty_range():
    assert list(range(0)) == []


@pytest.mark.parametrize("n", range(300))
def test_many(n):
    assert n in range(300)


def test_step():
    assert list(range(0, 6, 2)) == [0, 2, 4]


@pytest.mark.parametrize("start", [0, 5])
@pytest.mark.parametrize("stop", [1, 10, 100])
def test_stacked(start, stop):
    assert len(range(start, stop)) == max(0, stop - start)


class TestSlices:
    def test_plain_method(self):
        assert [1, 2, 3][1:] == [2, 3]

    @pytest.mark.parametrize(
        "text",
        ["a::b", "[x]", "plain"],
    )
    def test_odd_ids(self, text):
        assert text[:0] == ""

    @pytest.mark.parametrize("only", ["one"])
    def test_single_case(self, only):
        assert only == "one"
