import datetime as dt

import pytest

from library.catalog import Book, Catalog, NotAvailable

TODAY = dt.date(2024, 3, 1)


@pytest.fixture
def catalog():
    c = Catalog()
    c.add(Book("0-306-40615-2", "Signals and Systems", "Oppenheim", copies=2))
    c.add(Book("0-8044-2957-X", "The Hobbit", "J. R. R. Tolkien"))
    c.add(Book("978-0-13-468599-1", "Effective Java", "Joshua Bloch"))
    return c


@pytest.fixture
def audited_catalog(catalog):
    yield catalog
    # Teardown check: every loan must be returned before the test ends.
    outstanding = [b for b in catalog.books.values() if b.loans]
    if outstanding:
        raise RuntimeError(f"loans still outstanding: {outstanding}")


@pytest.fixture
def remote_catalog():
    raise ConnectionError("catalog server unreachable: library.example.org:443")


def test_add_new_book(catalog):
    assert len(catalog.books) == 3


def test_add_existing_increases_copies(catalog):
    book = catalog.add(Book("0-8044-2957-X", "The Hobbit", "J. R. R. Tolkien"))
    assert book.copies == 2


def test_lend_returns_due_date(catalog):
    assert catalog.lend("0-8044-2957-X", "ana", TODAY) == dt.date(2024, 3, 15)


def test_lend_last_copy_then_fail(catalog):
    catalog.lend("0-8044-2957-X", "ana", TODAY)
    with pytest.raises(NotAvailable):
        catalog.lend("0-8044-2957-X", "ben", TODAY)


def test_lend_due_date_over_month_end(catalog):
    due = catalog.lend("0-306-40615-2", "ana", dt.date(2024, 2, 20))
    assert due == dt.date(2024, 3, 6)


def test_search_by_author(catalog):
    assert catalog.search("tolkien") == ["The Hobbit"]


def test_search_by_title_word(catalog):
    assert catalog.search("java") == ["Effective Java"]


def test_search_multiple(catalog):
    assert catalog.search("s") == ["Effective Java", "Signals and Systems", "The Hobbit"]


def test_overdue(catalog):
    catalog.lend("0-306-40615-2", "ana", dt.date(2024, 1, 1))
    catalog.lend("0-8044-2957-X", "ben", dt.date(2024, 2, 25))
    assert catalog.overdue(TODAY) == [("ana", "Signals and Systems"), ("ben", "The Hobbit")]


def test_lend_unknown_isbn(catalog):
    with pytest.raises(NotAvailable):
        catalog.lend("000-0000000000", "ana", TODAY)


def test_loan_checked_at_teardown(audited_catalog):
    audited_catalog.lend("978-0-13-468599-1", "carl", TODAY)
    assert audited_catalog.books["978-0-13-468599-1"].available == 0


def test_remote_search(remote_catalog):
    assert remote_catalog.search("hobbit")


@pytest.mark.skip(reason="reservations are not implemented yet")
def test_reserve_book(catalog):
    pass


@pytest.mark.skipif(dt.date.today().year > 2000, reason="legacy Y2K date handling")
def test_two_digit_years():
    pass


@pytest.mark.slow
def test_bulk_import(catalog):
    for n in range(200):
        catalog.add(Book(f"isbn-{n}", f"Volume {n}", "Various"))
    assert len(catalog.books) == 203


class TestAvailability:
    def test_initial_availability(self, catalog):
        assert catalog.books["0-306-40615-2"].available == 2

    def test_availability_after_lend(self, catalog):
        catalog.lend("0-306-40615-2", "ana", TODAY)
        assert catalog.books["0-306-40615-2"].available == 1

    @pytest.mark.xfail(strict=False, reason="returns are not implemented")
    def test_availability_after_return(self, catalog):
        catalog.lend("0-306-40615-2", "ana", TODAY)
        catalog.books["0-306-40615-2"].loans.clear()
        assert catalog.books["0-306-40615-2"].available == 2
