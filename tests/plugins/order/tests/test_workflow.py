import pytest

STATE = {"account": None, "balance": 0}


@pytest.mark.order(3)
def test_withdraw():
    STATE["balance"] -= 30
    assert STATE["balance"] == 70


@pytest.mark.order(1)
def test_open_account():
    STATE["account"] = "ada"
    assert STATE["balance"] == 0


@pytest.mark.order(4)
def test_close_with_zero_balance():
    assert STATE["balance"] == 0, f"balance left: {STATE['balance']}"


@pytest.mark.order(2)
def test_deposit():
    assert STATE["account"] == "ada"
    STATE["balance"] += 100


def test_unordered_runs_last():
    assert STATE["account"] == "ada"
