from approvaltests import verify

from shop.receipt import greeting, receipt, stock


def test_receipt():
    verify(receipt([("apple", 1.5), ("pear", 2.25), ("melon", 3.0)]))


def test_stock():
    verify(stock({"apple": 4, "pear": 0, "melon": 2}))


def test_greeting():
    verify(greeting("Ada"))
