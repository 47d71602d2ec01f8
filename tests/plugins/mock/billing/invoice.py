from billing import mailer


def send_invoice(customer, amount):
    body = f"Dear {customer}, you owe {amount:.2f} EUR."
    mailer.send(to=customer, body=body)
    return body
