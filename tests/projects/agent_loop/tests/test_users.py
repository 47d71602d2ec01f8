from shop.users import display_name, initials


def test_display_name():
    assert display_name("Ada", "Lovelace") == "Ada Lovelace"


def test_display_name_without_last():
    assert display_name("Ada", "") == "Ada"


def test_initials():
    assert initials("ada", "lovelace") == "AL"
