import socket
import threading

import pytest


def fetch_status(host, port):
    with socket.create_connection((host, port), timeout=1) as conn:
        conn.sendall(b"STATUS\n")
        return conn.recv(64).decode().strip()


def test_parse_status():
    assert "OK\n".strip() == "OK"


def test_fetch_status_from_the_network():
    assert fetch_status("127.0.0.1", 9) == "OK"


@pytest.mark.enable_socket
def test_fetch_status_from_a_local_server():
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer():
        conn, _ = server.accept()
        with conn:
            conn.recv(64)
            conn.sendall(b"OK\n")

    thread = threading.Thread(target=answer)
    thread.start()
    try:
        assert fetch_status("127.0.0.1", port) == "OK"
    finally:
        thread.join()
        server.close()
