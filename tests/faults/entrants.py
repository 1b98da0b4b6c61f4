"""Entrants and envs that misbehave on purpose, importable by name from worker processes."""

from __future__ import annotations

import ctypes
import os
import time
from typing import Any

import numpy as np

from arena import RandomAgent


def broken_env(**kwargs: Any) -> Any:
    """An env factory that fails with an error of its own."""
    raise OSError("the game server is down")


class _OnSecondMove(RandomAgent):
    """A random agent that does something drastic on its second move of a game."""

    def reset(self, *, seed: int | None = None) -> None:
        super().reset(seed=seed)
        self.moves = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        self.moves += 1
        if self.moves == 2:
            self.fault()
        return super().act(observation, action_mask, reward)

    def fault(self) -> None:
        raise NotImplementedError


class ExitingAgent(_OnSecondMove):
    """Ends its own process with ``os._exit`` (no cleanup, no exception)."""

    def fault(self) -> None:
        os._exit(3)


class SegfaultingAgent(_OnSecondMove):
    """Crashes its process with a segmentation fault (reads address 0 through ctypes)."""

    def fault(self) -> None:
        ctypes.string_at(0)


class SystemExitAgent(_OnSecondMove):
    """Raises ``SystemExit``."""

    def fault(self) -> None:
        raise SystemExit(4)


class InterruptingAgent(_OnSecondMove):
    """Raises ``KeyboardInterrupt`` itself (no Ctrl-C was pressed)."""

    def fault(self) -> None:
        raise KeyboardInterrupt


class StubbornAgent(_OnSecondMove):
    """Swallows every interrupt, the move time limit's included, and never returns."""

    def fault(self) -> None:
        while True:
            try:
                time.sleep(0.01)
            except BaseException:
                pass


class StuckInCAgent(_OnSecondMove):
    """Stuck in C code that never returns to Python (``pause()`` with every signal it can ignore ignored)."""

    def fault(self) -> None:
        import signal

        signal.signal(signal.SIGALRM, signal.SIG_IGN)
        libc = ctypes.CDLL(None)
        while True:
            libc.pause()


class _Cell(int):
    """An ``int`` subclass, as some libraries return."""


class OddIntegersAgent(RandomAgent):
    """A random agent whose actions come as numpy scalars, ``IntEnum`` members and ``int`` subclasses in turn."""

    def reset(self, *, seed: int | None = None) -> None:
        super().reset(seed=seed)
        self.turn = 0

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        import enum

        action = int(super().act(observation, action_mask, reward))
        self.turn += 1
        kind = self.turn % 4
        if kind == 0:
            return np.int64(action)
        if kind == 1:
            return enum.IntEnum("Cell", {f"c{i}": i for i in range(action + 1)})(action)
        if kind == 2:
            return _Cell(action)
        return np.array(action, dtype=np.int16)


class NotForkedAgent(RandomAgent):
    """A random agent that refuses to play in a worker forked from the tournament's process
    (which may run threads, e.g. torch's OpenMP pool): its move raises, a forfeit."""

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> Any:
        import multiprocessing

        if type(multiprocessing.current_process()).__name__ == "ForkProcess":
            raise RuntimeError("this worker was forked from a threaded parent")
        return super().act(observation, action_mask, reward)
