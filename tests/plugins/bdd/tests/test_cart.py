from pytest_bdd import given, parsers, scenario, then, when


@scenario("cart.feature", "Adding an item")
def test_adding_an_item():
    pass


@scenario("cart.feature", "Adding twice")
def test_adding_twice():
    pass


@scenario("cart.feature", "Checking out")
def test_undefined_step():
    pass


@given("an empty cart", target_fixture="cart")
def empty_cart():
    return []


@when(parsers.parse("I add {count:d} apples"))
def add_apples(cart, count):
    cart.extend(["apple"] * count)


@then(parsers.parse("the cart holds {count:d} items"))
def cart_holds(cart, count):
    assert len(cart) == count
