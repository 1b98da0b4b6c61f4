"""``arena serve`` answers only its own page: the token, ``Host`` and ``Origin``.

Attacks tried as a hostile web page would: a cross-site WebSocket, a DNS-rebound host name,
a request without the printed token. Real HTTP and WebSocket clients on 127.0.0.1.
"""

from __future__ import annotations

import http.client
import re

import pytest
from websockets.exceptions import InvalidStatus

from tests.faults.helpers import run_cli
from tests.faults.serving import WAIT, connect, receive, served


def _get(url: str, target: str, host: str | None = None) -> http.client.HTTPResponse:
    port = int(re.search(r":(\d+)/", url).group(1))
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=WAIT)
    connection.putrequest("GET", target, skip_host=True)
    connection.putheader("Host", host or f"127.0.0.1:{port}")
    connection.endheaders()
    return connection.getresponse()


def test_the_page_needs_the_token_and_the_servers_own_host():
    with served() as server:
        token = server.token
        assert f"?token={token}" in server.url and len(token) >= 32
        ok = _get(server.url, f"/?token={token}")
        assert ok.status == 200 and b"ArenaView" in ok.read()
        assert ok.getheader("X-Frame-Options") == "DENY" and ok.getheader("Referrer-Policy") == "no-referrer"
        for target in ("/", "/?token=", f"/?token={token[:-1]}", f"/?token={token}x", f"/?token=a&token={token}"):
            response = _get(server.url, target)
            assert response.status == 403, target
            assert b"token" in response.read()
        port = server.port
        for host in (f"evil.example:{port}", "evil.example", f"127.0.0.1.evil.example:{port}", f"127.0.0.1:{port + 1}"):
            response = _get(server.url, f"/?token={token}", host=host)  # a DNS-rebound name, another port
            assert response.status == 403 and b"is not this server" in response.read(), host
        assert _get(server.url, f"/?token={token}", host=f"localhost:{port}").status == 200


@pytest.mark.parametrize(
    "origin, token",
    [
        ("http://evil.example", "same"),  # a cross-site page
        ("null", "same"),  # a sandboxed frame or a file:// page
        (None, "same"),
        ("same", None),  # the right origin without the token
        ("same", "wrong"),
    ],
)
def test_a_websocket_from_anywhere_else_is_refused(origin, token):
    with served() as server:
        with pytest.raises(InvalidStatus) as refused:
            connect(server.url, origin=origin, token=token)
        assert refused.value.response.status_code == 403
        with connect(server.url) as ws:  # the server's own page still plays
            assert receive(ws, "hello")["seat"] == "player_0"


def test_unknown_vs_agent_or_bad_kwargs_fail_before_listening():
    unknown = run_cli("serve", "tic_tac_toe", "--vs", "no_such_agent", "--port", "0")
    assert unknown.returncode == 2 and "unknown agent 'no_such_agent'" in unknown.stderr
    assert "http://" not in unknown.stdout  # it never started listening
    bad = run_cli("serve", "tic_tac_toe", "--vs", 'random{"bogus": 1}', "--port", "0")
    assert bad.returncode == 2 and "could not be built" in bad.stderr and "bogus" in bad.stderr
    assert "http://" not in bad.stdout


@pytest.mark.parametrize("token", ["", "short", "x" * 15, "has space in it ok?", "tok%26en=1234567890"])
def test_a_weak_or_unsafe_token_is_refused(token):
    from arena.serve import GameServer
    from arena.specs.envs import EnvSpec

    with pytest.raises(ValueError, match="a token must be at least 16 letters, digits, '-' or '_'"):
        GameServer(EnvSpec("tic_tac_toe"), "random", port=0, token=token)
