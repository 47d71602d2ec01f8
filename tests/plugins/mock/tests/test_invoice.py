from billing.invoice import send_invoice


def test_body(mocker):
    mocker.patch("billing.mailer.send")
    assert send_invoice("ada", 12.5) == "Dear ada, you owe 12.50 EUR."


def test_sends_once(mocker):
    send = mocker.patch("billing.mailer.send")
    send_invoice("ada", 12.5)
    send.assert_called_once_with(to="ada", body="Dear ada, you owe 12.5 EUR.")


def test_spy_sees_the_call(mocker):
    import billing.mailer

    mocker.patch.object(billing.mailer, "send", return_value=None)
    spy = mocker.spy(billing.mailer, "send")
    send_invoice("bob", 1)
    assert spy.call_count == 1


def test_forgot_to_patch():
    send_invoice("eve", 3)
