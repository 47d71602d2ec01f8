"""Not a test module: pytest collects nothing from this project."""


def make_user(name="alice"):
    return {"name": name, "active": True}
