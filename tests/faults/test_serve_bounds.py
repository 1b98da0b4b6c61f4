"""``arena serve`` tells a client nothing it did not need: no banner, no echo of its ``Host``, every
response marked ``nosniff``; and a burst of connections that never finish their handshake holds a
bounded number of threads, each for a short time. Real clients on 127.0.0.1 only."""

from __future__ import annotations

import http.client
import select
import socket
import threading
import time

from arena.serve.doors import MAX_OPENING
from tests.faults.serving import WAIT, connect, served

HOSTILE_HOST = "<script>alert(1)</script>.example"


def _get(port: int, target: str, host: str) -> http.client.HTTPResponse:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    connection.putrequest("GET", target, skip_host=True)
    connection.putheader("Host", host)
    connection.endheaders()
    return connection.getresponse()


def test_no_banner_no_echo_and_nosniff_on_every_response():
    with served() as server:
        port, token = server.port, server.token
        responses = {
            "page": _get(port, f"/?token={token}", f"127.0.0.1:{port}"),
            "not found": _get(port, f"/x?token={token}", f"127.0.0.1:{port}"),
            "wrong host": _get(port, f"/?token={token}", HOSTILE_HOST),
            "no token": _get(port, "/", f"127.0.0.1:{port}"),
        }
        assert {name: response.status for name, response in responses.items()} == {
            "page": 200,
            "not found": 404,
            "wrong host": 403,
            "no token": 403,
        }
        for name, response in responses.items():
            body = response.read()
            assert response.getheader("X-Content-Type-Options") == "nosniff", name
            assert response.getheader("Server") is None, (name, response.getheader("Server"))
            if name != "page":  # refusals and errors say nothing the request sent
                assert b"script" not in body and b"example" not in body, (name, body)
        with connect(server.url) as ws:  # the WebSocket's own handshake answer
            headers = ws.response.headers
            assert headers.get("X-Content-Type-Options") == "nosniff" and "Server" not in headers


def _open_sockets(port: int, count: int) -> list[socket.socket]:
    return [socket.create_connection(("127.0.0.1", port), timeout=WAIT) for _ in range(count)]


def _answers(sockets: list[socket.socket], wanted: int) -> dict[socket.socket, bytes]:
    """What the server said to each socket that it answered (or closed), once ``wanted`` were."""
    answered: dict[socket.socket, bytes] = {}
    deadline = time.monotonic() + WAIT
    while len(answered) < wanted and time.monotonic() < deadline:
        ready, _, _ = select.select([s for s in sockets if s not in answered], [], [], 0.5)
        for sock in ready:
            try:
                answered[sock] = sock.recv(256)
            except ConnectionResetError:
                answered[sock] = b""
    return answered


def test_a_burst_of_half_open_connections_holds_a_bounded_number_of_threads():
    burst = 10 * MAX_OPENING
    with served() as server:
        before = threading.active_count()
        sockets = _open_sockets(server.port, burst)  # connected, never a byte sent
        try:
            # All but the first MAX_OPENING are turned away at once, with a 503 and the end of the stream.
            answers = _answers(sockets, burst - MAX_OPENING)
            assert len(answers) >= burst - MAX_OPENING
            assert all(answer.startswith(b"HTTP/1.1 503") for answer in answers.values())
            # Each connection still opening holds its handler thread and the library's reader thread.
            assert threading.active_count() - before <= 2 * MAX_OPENING + 2
            # The ones let in are closed by the server once the handshake timeout passes.
            held = [s for s in sockets if s not in answers]
            assert len(_answers(held, len(held))) == len(held)
        finally:
            for sock in sockets:
                sock.close()
        # Then the page is served again.
        deadline = time.monotonic() + WAIT
        while server._opening.count and time.monotonic() < deadline:
            time.sleep(0.05)
        # closed at once: the server's shutdown waits for an open connection (up to its 10 s close timeout)
        with _get(server.port, f"/?token={server.token}", f"127.0.0.1:{server.port}") as response:
            assert response.status == 200
