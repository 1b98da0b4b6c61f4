"""A person in a web browser, as an arena agent (the seat ``arena serve`` gives to its visitor).

The agent talks to the page through a :class:`Channel`: it sends the view (the env's render,
the person's private observation where the game hides information, the legal actions) and
waits for a click (turn-based games), or, in a real-time game, sends a view each tick and plays
the key held down at the end of the tick. A closed page ends the game as a forfeit of the seat.
"""

from __future__ import annotations

import collections
import random
import time
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.agents.human import format_observation
from arena.env import has_hidden_information
from arena.errors import Forfeit, SpaceMismatchError
from arena.replay.pack import pack_view

__all__ = ["Channel", "BrowserHuman", "key_bindings", "idle_action"]

# Keys of the page -> action names they play in real-time games, first match wins.
_KEY_NAMES = {
    "ArrowUp": ("up",),
    "ArrowDown": ("down",),
    "ArrowLeft": ("left",),
    "ArrowRight": ("right",),
    " ": ("fire", "bomb", "shoot", "attack"),
}
_TICKETS = random.SystemRandom()
_MAX_PENDING = 16  # page messages kept while the game is busy (the oldest go first)
_IDLE_NAMES = ("noop", "no-op", "stop", "straight", "idle", "none", "stay")


def key_bindings(names: list[str]) -> dict[str, int]:
    """Keyboard keys -> action index, from the env's action names (digits pick any action).

    Example:
        >>> key_bindings(["noop", "fire", "up", "down"])
        {'ArrowUp': 2, 'ArrowDown': 3, ' ': 1, '1': 0, '2': 1, '3': 2, '4': 3}
    """
    lowered = [name.lower() for name in names]
    keys = {}
    for key, wanted in _KEY_NAMES.items():
        for name in wanted:
            if name in lowered:
                keys[key] = lowered.index(name)
                break
    for index in range(min(len(names), 9)):
        keys[str(index + 1)] = index
    return keys


def idle_action(names: list[str]) -> int:
    """The action played while no key is held: a no-op by name, else action 0.

    Example:
        >>> idle_action(["left", "straight", "right"])
        1
    """
    lowered = [name.lower() for name in names]
    for name in _IDLE_NAMES:
        if name in lowered:
            return lowered.index(name)
    return 0


class Channel:
    """The game's end of the link to one open page, in the game's process.

    The server (another process) relays the page's checked messages over ``connection`` as
    ``("page", message)`` and tells the game the page went away with ``("closed",)``; what the
    game sends goes back as ``("page", message)``. Keys held down (real-time games) only update
    :attr:`held`; every other message is handed to :meth:`receive`.

    Args:
        connection: the game process's end of a ``multiprocessing`` pipe to the server.
    """

    def __init__(self, connection: Any) -> None:
        self.connection = connection
        self.closed = False
        self.held: int | None = None  # the action of the key held down (real-time games)
        self._pending: collections.deque[dict[str, Any]] = collections.deque(maxlen=_MAX_PENDING)

    def send(self, message: dict[str, Any]) -> None:
        self.connection.send(("page", message))

    def _take(self, timeout: float | None) -> bool:
        """Read one relayed message (waiting at most ``timeout``); False when none came."""
        if not self.connection.poll(timeout):
            return False
        try:
            item = self.connection.recv()
        except (EOFError, OSError):  # the server is gone: nobody is watching this page any more
            item = ("closed",)
        if item is None or item[0] == "closed":  # None: the server stops
            self.close()
        elif item[0] == "page":
            message = item[1]
            if message.get("type") == "key":
                self.held = message.get("action")
            else:
                self._pending.append(message)
        return True

    def drain(self) -> None:
        """Take every message already relayed (the held key and ``closed`` are then current)."""
        while not self.closed and self._take(0):
            pass

    def receive(self) -> dict[str, Any]:
        """The page's next message; ``{"type": "closed"}`` once the page went away."""
        while not self._pending and not self.closed:
            self._take(None)
        return self._pending.popleft() if self._pending else {"type": "closed"}

    def close(self) -> None:
        self.closed = True


class BrowserHuman(Agent):
    """The seat of a person playing in the browser.

    Each view that asks for a move carries a fresh random ``turn`` number; a move counts only
    with the number of the view it answers, so a click on an old board, or a move sent before
    the game began (it cannot know the number), is refused with an error message, never played
    later.

    Args:
        channel: the page's channel.
        env: the env played (for its render, action names and hidden information).
        seat: the env agent id the person plays.
        real_time: play a move each tick of ``fps`` with the held key, instead of waiting for a click.
        fps: ticks a second in real-time games.
    """

    def __init__(self, channel: Channel, env: Any, seat: str, *, real_time: bool = False, fps: float = 10.0) -> None:
        self.channel = channel
        self.env = env
        self.seat = seat
        self.real_time = real_time
        self.period = 1.0 / fps
        self.names: list[str] = []
        self._next_tick = 0.0
        self.returned = 0.0
        self.turn = 0  # the number of the board that asks for a move now (0: none yet)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        if not isinstance(action_space, spaces.Discrete):
            raise SpaceMismatchError(
                f"BrowserHuman at {self.seat}: a person picks from a Discrete action space, got {action_space}"
            )
        super().setup(observation_space, action_space)
        names = list(self.env.unwrapped.action_names(self.seat) or [])
        n = int(action_space.n)
        self.names = names if len(names) == n else [str(i) for i in range(n)]

    def reset(self, *, seed: int | None = None) -> None:
        self._next_tick = 0.0
        self.returned = 0.0

    def view(self, observation: Any = None, legal: list[int] | None = None, status: str = "") -> dict[str, Any]:
        """The message that shows the game now to the person (with the ``turn`` a move must answer)."""
        private = None
        if observation is not None and has_hidden_information(self.env):
            private = self.env.unwrapped.observation_text(self.seat, observation)
            if private is None:
                private = format_observation(observation)
        return {
            "type": "view",
            "view": pack_view(self.env.render()),
            "private": private,
            "legal": legal,
            "returned": self.returned,
            "status": status,
            "turn": self.turn if legal is not None else None,
        }

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        self.returned += reward
        self.channel.drain()
        if self.channel.closed:
            raise Forfeit(self.seat, "closed the page")
        legal = (
            list(range(len(self.names)))
            if action_mask is None
            else [int(i) for i in np.flatnonzero(np.asarray(action_mask))]
        )
        if self.real_time:
            return self._tick(observation, legal)
        self.turn = _TICKETS.randrange(1, 2**31)
        self.channel.send(self.view(observation, legal, "your move"))
        while True:
            message = self.channel.receive()
            kind = message.get("type")
            if kind == "closed":
                raise Forfeit(self.seat, "closed the page")
            if kind != "move":
                continue
            action, turn = message.get("action"), message.get("turn")
            if turn != self.turn:
                self.channel.send(
                    {
                        "type": "error",
                        "text": f"that move answers turn {turn!r}, but the board "
                        f"shown now is turn {self.turn}: not played",
                    }
                )
            elif type(action) is int and action in legal:
                return action
            else:
                self.channel.send({"type": "error", "text": f"action {action!r} is not legal here; legal: {legal}"})

    def _tick(self, observation: Any, legal: list[int]) -> int:
        if self._next_tick == 0.0:  # the first tick waits until the person says they are ready
            self.channel.send(self.view(observation, None, "press a key to start"))
            while (kind := self.channel.receive().get("type")) != "ready":
                if kind == "closed":
                    raise Forfeit(self.seat, "closed the page")
        self.channel.send(self.view(observation, None, "playing"))
        now = time.monotonic()
        if self._next_tick > now:
            time.sleep(self._next_tick - now)
        self._next_tick = max(self._next_tick, now) + self.period
        self.channel.drain()
        if self.channel.closed:
            raise Forfeit(self.seat, "closed the page")
        held = self.channel.held
        action = idle_action(self.names) if held is None else held
        return action if action in legal else legal[0]

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.returned += reward

    def __str__(self) -> str:
        return f"BrowserHuman({self.seat})"
