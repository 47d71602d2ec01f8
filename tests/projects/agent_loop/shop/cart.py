def total(items):
    """The price of a basket of (name, price, quantity) items."""
    amount = 0
    for _name, price, quantity in items:
        amount += price * quantity
    return amount + 1
