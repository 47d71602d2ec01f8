from hypothesis import given
from hypothesis import strategies as st


def split(cents, parts):
    share = cents // parts
    return [share] * parts


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=10))
def test_split_keeps_every_cent(cents, parts):
    assert sum(split(cents, parts)) == cents


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=10))
def test_split_has_as_many_shares_as_parts(cents, parts):
    assert len(split(cents, parts)) == parts


@given(st.lists(st.integers()))
def test_sorted_is_idempotent(xs):
    assert sorted(sorted(xs)) == sorted(xs)


def test_split_example():
    assert split(100, 4) == [25, 25, 25, 25]
