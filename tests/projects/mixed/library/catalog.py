"""A tiny lending-library catalog."""

import datetime as dt


class NotAvailable(Exception):
    pass


class Book:
    def __init__(self, isbn, title, author, copies=1):
        self.isbn = isbn
        self.title = title
        self.author = author
        self.copies = copies
        self.loans = []

    def __repr__(self):
        return f"Book({self.isbn!r}, {self.title!r})"

    @property
    def available(self):
        return self.copies - len(self.loans)


class Catalog:
    def __init__(self):
        self.books = {}

    def __repr__(self):
        return f"Catalog({len(self.books)} books)"

    def add(self, book):
        if book.isbn in self.books:
            self.books[book.isbn].copies += book.copies
        else:
            self.books[book.isbn] = book
        return self.books[book.isbn]

    def lend(self, isbn, member, today):
        book = self.books[isbn]
        if book.available <= 0:
            raise NotAvailable(f"no copies of {book.title!r} left")
        due = today + dt.timedelta(days=14)
        book.loans.append((member, due))
        return due

    def search(self, text):
        text = text.lower()
        return sorted(
            b.title for b in self.books.values()
            if text in b.title.lower() or text in b.author.lower()
        )

    def overdue(self, today):
        return [
            (member, b.title)
            for b in self.books.values()
            for member, due in b.loans
            if due < today
        ]
