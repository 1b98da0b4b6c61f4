"""A person in a web browser, as an arena agent (the seat ``arena serve`` gives to its visitor).

The agent talks to the page through a :class:`Channel`: it sends the view (the env's render,
the person's private observation where the game hides information, the legal actions) and
waits for a click (turn-based games), or, in a real-time game, sends a view each tick and plays
the key held down at the end of the tick. A closed page ends the game as a forfeit of the seat.
"""

from __future__ import annotations

import queue
import time
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.agents.human import format_observation, has_hidden_information
from arena.errors import Forfeit, SpaceMismatchError
from arena.replay.pack import pack_view

__all__ = ["Channel", "BrowserHuman", "key_bindings", "idle_action"]

# Keys of the page -> action names they play in real-time games, first match wins.
_KEY_NAMES = {
    "ArrowUp": ("up",), "ArrowDown": ("down",), "ArrowLeft": ("left",), "ArrowRight": ("right",),
    " ": ("fire", "bomb", "shoot", "attack"),
}
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
    """The link between a game (any thread) and one open page.

    ``send`` is given by the server (it writes to the page's websocket); the server puts the
    page's messages into ``inbox``; ``closed`` is set when the page goes away.
    """

    def __init__(self, send: Any) -> None:
        self.send = send
        self.inbox: queue.Queue[dict[str, Any]] = queue.Queue()
        self.closed = False
        self.held: int | None = None  # the action of the key held down (real-time games)

    def close(self) -> None:
        self.closed = True
        self.inbox.put({"type": "closed"})


class BrowserHuman(Agent):
    """The seat of a person playing in the browser.

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

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        if not isinstance(action_space, spaces.Discrete):
            raise SpaceMismatchError(f"BrowserHuman at {self.seat}: a person picks from a Discrete action space, "
                                     f"got {action_space}")
        super().setup(observation_space, action_space)
        method = getattr(self.env.unwrapped, "action_names", None)
        names = list(method(self.seat)) if method is not None else []
        self.names = names if len(names) == action_space.n else [str(i) for i in range(action_space.n)]

    def reset(self, *, seed: int | None = None) -> None:
        self._next_tick = 0.0
        self.returned = 0.0

    def view(self, observation: Any = None, legal: list[int] | None = None, status: str = "") -> dict[str, Any]:
        """The message that shows the game now to the person."""
        private = None
        if observation is not None and has_hidden_information(self.env):
            describe = getattr(self.env.unwrapped, "observation_text", None)
            private = describe(self.seat, observation) if describe is not None else format_observation(observation)
        return {"type": "view", "view": pack_view(self.env.render()), "private": private, "legal": legal,
                "returned": self.returned, "status": status}

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        self.returned += reward
        if self.channel.closed:
            raise Forfeit(self.seat, "closed the page")
        legal = list(range(self.action_space.n)) if action_mask is None else \
            [int(i) for i in np.flatnonzero(np.asarray(action_mask))]
        if self.real_time:
            return self._tick(observation, legal)
        self.channel.send(self.view(observation, legal, "your move"))
        while True:
            message = self.channel.inbox.get()
            if message.get("type") == "closed":
                raise Forfeit(self.seat, "closed the page")
            if message.get("type") == "move":
                action = message.get("action")
                if isinstance(action, int) and action in legal:
                    return action
                self.channel.send({"type": "error", "text": f"action {action!r} is not legal here; legal: {legal}"})

    def _tick(self, observation: Any, legal: list[int]) -> int:
        if self._next_tick == 0.0:  # the first tick waits until the person says they are ready
            self.channel.send(self.view(observation, None, "press a key to start"))
            while (message := self.channel.inbox.get()).get("type") != "ready":
                if message.get("type") == "closed":
                    raise Forfeit(self.seat, "closed the page")
        self.channel.send(self.view(observation, None, "playing"))
        now = time.monotonic()
        if self._next_tick > now:
            time.sleep(self._next_tick - now)
        self._next_tick = max(self._next_tick, now) + self.period
        if self.channel.closed:
            raise Forfeit(self.seat, "closed the page")
        held = self.channel.held
        action = idle_action(self.names) if held is None else held
        return action if action in legal else legal[0]

    def done(self, reward: float, info: dict[str, Any]) -> None:
        self.returned += reward

    def __str__(self) -> str:
        return f"BrowserHuman({self.seat})"
