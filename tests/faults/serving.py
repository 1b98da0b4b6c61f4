"""Helpers for the ``arena serve`` fault tests: a real server (object or CLI process) and a real
WebSocket client on 127.0.0.1, with every wait bounded; hostile agents and envs to serve."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from typing import Any, Iterator

from arena import RandomAgent
from arena.errors import MoveTimeout
from arena.serve import GameServer
from arena.specs.envs import EnvSpec
from envs.tic_tac_toe import TicTacToe
from tests.faults.helpers import ROOT

# Far above what any step of these tiny games needs on a loaded box: reaching it means a hang.
WAIT = 60.0


@contextmanager
def served(env: str = "tic_tac_toe", vs: str = "random", **kwargs: Any) -> Iterator[GameServer]:
    """A started :class:`GameServer` on a free port whose games run in a thread; stopped and joined after."""
    server = GameServer(EnvSpec(env), vs, port=0, seed=kwargs.pop("seed", 3), **kwargs).start()
    thread = threading.Thread(target=server.run_games, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stop()
        thread.join(timeout=WAIT)
        assert not thread.is_alive(), "the game loop did not end"


def wait_for_games(server: GameServer, count: int, timeout: float = WAIT) -> list[dict[str, Any]]:
    """The server's first ``count`` finished games, once they are over (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while len(server.results) < count:
        assert time.monotonic() < deadline, f"{len(server.results)} of {count} games ended within {timeout} s"
        time.sleep(0.02)
    return server.results[:count]


def connect(url: str, *, origin: str | None = "same", token: str | None = "same", **headers: str) -> Any:
    """A websocket to the server of page address ``url`` (``origin="same"``: the page's own origin)."""
    from websockets.sync.client import connect as ws_connect

    base = re.match(r"http://([^/]+)/\?token=(.*)", url)
    host, real_token = base.group(1), base.group(2)
    token = real_token if token == "same" else token
    origin = f"http://{host}" if origin == "same" else origin
    query = "" if token is None else f"?token={token}"
    return ws_connect(
        f"ws://{host}/ws{query}",
        origin=origin,
        additional_headers=headers or None,
        proxy=None,
        open_timeout=WAIT,
        compression=None,
    )


def receive(ws: Any, kind: str | tuple[str, ...], timeout: float = WAIT) -> dict[str, Any]:
    """The next message of type ``kind`` (others are skipped); fails after ``timeout`` seconds."""
    kinds = (kind,) if isinstance(kind, str) else kind
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {kinds} message within {timeout} s")
        try:
            message = json.loads(ws.recv(timeout=left))
        except TimeoutError:
            raise AssertionError(f"no {kinds} message within {timeout} s") from None
        if message["type"] in kinds:
            return message


def your_move(ws: Any) -> dict[str, Any]:
    """The next view that asks this page for a move."""
    while True:
        view = receive(ws, "view")
        if view["legal"]:
            return view


def move(ws: Any, action: Any, turn: Any) -> None:
    ws.send(json.dumps({"type": "move", "action": action, "turn": turn}))


def start_serve(*args: str) -> tuple[subprocess.Popen, str]:
    """``arena serve ARGS --port 0`` in its own process group, and the page address it printed."""
    process = subprocess.Popen(
        [sys.executable, "-m", "arena", "serve", *args, "--port", "0"],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    line = process.stdout.readline()
    found = re.search(r"at (http://127\.0\.0\.1:\d+/\?token=[\w-]+)", line)
    if found is None:
        end(process)
        raise AssertionError(f"arena serve printed no address: {line!r}\n{process.stderr.read()}")
    return process, found.group(1)


def end(process: subprocess.Popen) -> None:
    """Kill the process group of a served CLI (by its id) and reap it."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait(timeout=WAIT)


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
        return True
    except ProcessLookupError:
        return False


class Stubborn(RandomAgent):
    """Thinks forever and swallows the move-time interrupt (and any other) every time it comes."""

    def act(self, observation, action_mask=None, reward=0.0):
        while True:
            try:
                time.sleep(3600)
            except (MoveTimeout, Exception):
                pass


class Brittle(TicTacToe):
    """Tic-tac-toe whose rules crash when the centre (action 4) is played."""

    def step(self, actions):
        if 4 in actions.values():
            raise RuntimeError("the rules engine crashed on the centre")
        return super().step(actions)
