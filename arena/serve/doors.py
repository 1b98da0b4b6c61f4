"""What ``arena serve`` lets in: its own origin with its token, and well-formed small messages.

A local web server is reachable by every page the user's browser opens: a hostile site can
point a ``<form>``, a ``fetch`` or a WebSocket at ``127.0.0.1``, or rebind its own domain name
to ``127.0.0.1`` (DNS rebinding). Like Jupyter's server, ``arena serve`` therefore answers only
requests that

* name the server itself in ``Host`` (``127.0.0.1:PORT`` or ``localhost:PORT``): a rebound
  domain sends its own name there;
* carry the server's secret ``token`` (printed at start, in the page's address), compared in
  constant time: other pages, and other users of the machine, do not know it;
* and, for the WebSocket, come from the server's own page (``Origin``): browsers set ``Origin``
  on every WebSocket handshake and scripts cannot forge it.

Everything else gets ``403 Forbidden``, whose text never repeats what the request sent.
Connections that have not passed yet are bounded from the moment they are accepted
(:class:`OpeningBound`), and every response says ``X-Content-Type-Options: nosniff``
(:func:`no_sniffing`). Messages from the page are data: :func:`read_message`
accepts only small JSON objects of the few known shapes and says what is wrong with any other.
"""

from __future__ import annotations

import hmac
import json
import re
import secrets
import threading
from typing import Any
from urllib.parse import parse_qs, urlsplit

from arena.errors import InvalidValueError, MessageError

__all__ = [
    "Doors",
    "OpeningBound",
    "no_sniffing",
    "read_message",
    "server_token",
    "MAX_MESSAGE_BYTES",
    "MAX_FRAME_BYTES",
    "MAX_OPENING",
    "OPEN_TIMEOUT",
]

# A page's message is a few dozen bytes; longer ones are refused (with a reply) unread.
MAX_MESSAGE_BYTES = 1024
# Frames past this close the connection (the websockets library's own limit): memory per page stays bounded.
MAX_FRAME_BYTES = 64 * 1024
# Connections still opening (from accept until they pass the doors or end) at once; more are closed
# at once, so a burst of half-open sockets holds at most this many threads, each for OPEN_TIMEOUT.
MAX_OPENING = 16
OPEN_TIMEOUT = 3.0  # seconds a connection has to send its request (a browser sends it at once)
_TURNED_AWAY = b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

_KINDS = ("move", "key", "ready", "start")
_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,256}")


def _int_or_none(value: Any) -> bool:
    return value is None or type(value) is int  # not bool, not 1.5, not "4"


def read_message(text: Any) -> dict[str, Any]:
    """The page's message ``text`` as a checked dict, or :class:`MessageError` saying what is wrong.

    Shapes: ``{"type": "move", "action": INT, "turn": INT}``, ``{"type": "key", "action": INT or null}``,
    ``{"type": "ready"}``, ``{"type": "start"}``. Booleans are not integers here.

    Example:
        >>> read_message('{"type": "move", "action": 4, "turn": 2}')
        {'type': 'move', 'action': 4, 'turn': 2}
        >>> read_message('{"type": "move", "action": true, "turn": 2}')
        Traceback (most recent call last):
        ...
        arena.errors.MessageError: a move's action must be an integer, got true
    """
    if not isinstance(text, str):
        raise MessageError("messages must be JSON text, got a binary frame")
    if len(text) > MAX_MESSAGE_BYTES:
        raise MessageError(f"messages must be at most {MAX_MESSAGE_BYTES} characters, got {len(text)}")
    try:
        message = json.loads(text)
    except (ValueError, RecursionError) as err:
        raise MessageError(f"messages must be JSON objects, got text that is not JSON ({type(err).__name__})") from None
    if not isinstance(message, dict):
        raise MessageError(f"messages must be JSON objects, got {type(message).__name__}")
    kind = message.get("type")
    if kind not in _KINDS:
        raise MessageError(f"message type must be one of {', '.join(_KINDS)}, got {_show(kind)}")
    action = message.get("action")
    if kind == "move":
        if type(action) is not int:
            raise MessageError(f"a move's action must be an integer, got {_show(action)}")
        if type(message.get("turn")) is not int:
            raise MessageError(
                f"a move must carry the integer turn of the board it answers, got {_show(message.get('turn'))}"
            )
        return {"type": "move", "action": action, "turn": message["turn"]}
    if kind == "key":
        if not _int_or_none(action):
            raise MessageError(f"a key's action must be an integer or null, got {_show(action)}")
        return {"type": "key", "action": action}
    return {"type": kind}


def server_token(token: str | None = None) -> str:
    """``token`` checked (at least 16 letters, digits, ``-`` or ``_``), or a fresh random one.

    Example:
        >>> len(server_token()) >= 32, server_token("0123456789abcdef")
        (True, '0123456789abcdef')
    """
    if token is None:
        return secrets.token_urlsafe(24)
    if not isinstance(token, str) or not _TOKEN.fullmatch(token):
        raise InvalidValueError(f"arena serve: a token must be at least 16 letters, digits, '-' or '_', got {token!r}")
    return token


def _show(value: Any) -> str:
    """A short JSON rendering of a bad value for an error text."""
    shown = json.dumps(value)
    return shown if len(shown) <= 40 else shown[:37] + "..."


class Doors:
    """The access rules of one server on ``127.0.0.1:port``: hosts, origins and the token.

    Args:
        port: the port the server listens on.
        token: the secret the page's address carries (default: a fresh random one; a given one
            must be at least 16 letters, digits, ``-`` or ``_``).

    Raises:
        ValueError: a token that is too short or not URL-safe.

    Example:
        >>> doors = Doors(8000, token="s3cret-s3cret-s3cret")
        >>> doors.url
        'http://127.0.0.1:8000/?token=s3cret-s3cret-s3cret'
        >>> doors.refusal("/ws?token=s3cret-s3cret-s3cret", {"Host": ["127.0.0.1:8000"], "Origin": ["http://localhost:8000"]})
        >>> doors.refusal("/?token=s3cret-s3cret-s3cret", {"Host": ["evil.example:8000"]})
        'Host is not this server (expected 127.0.0.1:8000 or localhost:8000)'
        >>> doors.refusal("/?token=guess", {"Host": ["localhost:8000"]})
        'a missing or wrong token (open the address arena serve printed)'
    """

    def __init__(self, port: int, token: str | None = None) -> None:
        self.port = port
        self.token = server_token(token)
        names = ("127.0.0.1", "localhost")
        self.hosts = {f"{name}:{port}" for name in names} | (set(names) if port == 80 else set())
        self.origins = {f"http://{host}" for host in self.hosts}
        self.url = f"http://127.0.0.1:{port}/?token={self.token}"

    def refusal(self, target: str, headers: dict[str, list[str]]) -> str | None:
        """Why a request for ``target`` (path and query) with ``headers`` (name -> values) is refused,
        or ``None`` when it may pass."""
        # The texts never repeat what the request sent: a refusal reflects nothing back.
        hosts = headers.get("Host", [])
        if len(hosts) != 1 or hosts[0].lower() not in self.hosts:
            return f"Host is not this server (expected 127.0.0.1:{self.port} or localhost:{self.port})"
        parts = urlsplit(target)
        tokens = parse_qs(parts.query).get("token", [])
        given = tokens[0] if len(tokens) == 1 else ""
        if not hmac.compare_digest(given.encode("utf-8", "replace"), self.token.encode("utf-8")):
            return "a missing or wrong token (open the address arena serve printed)"
        if parts.path == "/ws":
            origins = headers.get("Origin", [])
            if len(origins) != 1 or origins[0].lower() not in self.origins:
                return "Origin is not this server's page"
        return None


class OpeningBound:
    """Counts the connections that have not passed the doors yet, from the moment they are accepted;
    past ``most`` a new one gets ``503`` and is closed at once, before a request is read.

    It takes the place of the websockets server's per-connection ``handler`` (run on the thread
    the server starts for each accepted socket); :meth:`passed` is called by the page handler once
    the handshake succeeded, and when the connection's thread ends.

    Args:
        server: a ``websockets.sync.server.Server`` (what ``serve()`` returns), not serving yet.
        most: connections that may be opening at once.
    """

    def __init__(self, server: Any, most: int) -> None:
        self.most = most
        self.count = 0
        self._lock = threading.Lock()
        self._local = threading.local()
        self._server = server
        self._handle = server.handler
        server.handler = self.handle

    def handle(self, sock: Any, address: Any) -> None:
        with self._lock:
            admitted = self.count < self.most
            if admitted:
                self.count += 1
        if not admitted:
            try:
                sock.setblocking(False)
                sock.send(_TURNED_AWAY)
            except OSError:
                pass
            finally:
                sock.close()
            with self._server.lock:  # what the server's own handler does when it returns
                self._server.handler_threads.discard(threading.current_thread())
            return
        self._local.counted = True
        try:
            self._handle(sock, address)
        finally:
            self.passed()

    def passed(self) -> None:
        """The connection of this thread passed the doors, or ended: it no longer counts."""
        if getattr(self._local, "counted", False):
            self._local.counted = False
            with self._lock:
                self.count -= 1


def no_sniffing(connection: Any, request: Any, response: Any) -> None:
    """Every response (the page, 403, 404, the WebSocket's) says its content type is to be believed."""
    response.headers["X-Content-Type-Options"] = "nosniff"
