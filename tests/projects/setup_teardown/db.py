"""A fake database connection used to exercise fixture setup/teardown."""


class DatabaseError(Exception):
    pass


class Connection:
    def __init__(self, url):
        self.url = url
        if not url.startswith("sqlite://"):
            raise DatabaseError(f"unsupported database url: {url}")
        self.rows = []
        self.open = True

    def __repr__(self):
        return f"Connection({self.url!r})"

    def insert(self, row):
        self.rows.append(row)

    def close(self):
        if self.rows:
            raise RuntimeError(f"connection closed with {len(self.rows)} uncommitted row(s)")
        self.open = False
