from billing.invoice import render, total


def test_total_of_malformed_line():
    assert total(["tea: 2.50", "cake 3.00"]) == 550


def test_total_with_a_currency_sign():
    assert total(["tea: $2.50"]) == 250


def test_render_two_rows():
    assert render(["tea: 2.50", "cake: 3.5"]).splitlines() == [
        "tea       2.50",
        "cake      3.50",
    ]


def test_render_many_rows():
    lines = [f"item{i}: {i}.0{i % 10}" for i in range(8)]
    assert render(lines).splitlines() == [f"item{i:<6}{i}.0{i % 10}" for i in range(8)][::-1]


def test_check_names_every_problem():
    from billing.invoice import check

    check([f"item {i}" for i in range(8)])
