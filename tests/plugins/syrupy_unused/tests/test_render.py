def render(user):
    return {"name": user.title(), "greeting": f"Hello, {user.title()}!"}


def test_render(snapshot):
    assert render("ada") == snapshot


def test_render_is_stable():
    assert render("ada") == render("ada")
