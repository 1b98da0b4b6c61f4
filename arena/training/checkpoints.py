"""Checkpoints of a training run: the trained folder rewritten every N timesteps, and a Ctrl-C that saves.

Stable-Baselines3's ``CheckpointCallback`` writes a new model zip every ``save_freq`` steps; a run of
``arena train`` checkpoints its trained-agent folder instead, the one thing ``--load`` continues and a
tournament plays, so an interrupted or killed run leaves a folder that is both.

* :class:`Interrupt` turns the first Ctrl-C (SIGINT) into a request: training stops at the next
  step, the folder is saved, and the command exits 130 as an interrupted program does. A second
  Ctrl-C stops at once (the folder keeps its last checkpoint), but never in the middle of a save.
* :class:`FolderCheckpoints` is the SB3 callback that saves every ``every`` timesteps and ends
  training when an :class:`Interrupt` asks.

This module imports Stable-Baselines3 when it is imported (:class:`FolderCheckpoints` derives from
its ``BaseCallback``).
"""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any, TextIO

from arena.training.policy_agent import require_sb3

require_sb3()
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402

from arena.errors import InvalidValueError

__all__ = ["FolderCheckpoints", "Interrupt"]


class Interrupt:
    """Ctrl-C during training as a request to stop at the next step and save.

    Inside ``with Interrupt():`` the first SIGINT sets :attr:`requested` and prints ``message``; a
    second one raises ``KeyboardInterrupt`` at once, unless a :meth:`saving` block is running, in
    which case it is raised when the block ends (so no file is left half written). Outside the main
    thread, where Python cannot take signals, it changes nothing.

    Args:
        message: the line printed at the first Ctrl-C.
        stream: where to print it (default: stderr).

    Example:
        >>> import os, signal
        >>> with Interrupt(message="stopping", stream=sys.stdout) as interrupt:
        ...     os.kill(os.getpid(), signal.SIGINT)
        ...     interrupt.requested
        stopping
        True
    """

    def __init__(self, message: str = "interrupted: stopping at the next step", stream: TextIO | None = None) -> None:
        self.message = message
        self.stream = stream
        self.requested = False
        self._saving = 0
        self._pending = False
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> Interrupt:
        if threading.current_thread() is threading.main_thread():
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous)
            self._installed = False

    def _handle(self, signum: int, frame: FrameType | None) -> None:
        if not self.requested:
            self.requested = True
            print(self.message, file=self.stream if self.stream is not None else sys.stderr, flush=True)
        elif self._saving:
            self._pending = True  # raised when the save is complete
        else:
            raise KeyboardInterrupt

    @contextmanager
    def saving(self) -> Iterator[None]:
        """A block that a second Ctrl-C does not cut: it is raised when the block ends."""
        self._saving += 1
        try:
            yield
        finally:
            self._saving -= 1
        if self._pending and not self._saving:
            self._pending = False
            raise KeyboardInterrupt


class FolderCheckpoints(BaseCallback):
    """Save the run's folder every ``every`` timesteps; stop training when ``interrupt`` asks.

    Like SB3's ``CheckpointCallback``, but ``every`` counts timesteps (as ``--eval-every`` does), and
    what it saves is whatever ``save`` writes: ``arena train`` passes the function that writes the whole
    trained-agent folder. Place it after the evaluation callback, so that a checkpoint taken at an
    evaluation step holds that evaluation. A continued run counts from its loaded timesteps.

    Args:
        save: writes the checkpoint (called with no arguments).
        every: timesteps between checkpoints (``None``: none but the one the caller takes at the end).
        interrupt: the :class:`Interrupt` whose request ends training at the next step; saves run
            inside its :meth:`Interrupt.saving` block.

    Attributes:
        saved_at: the timestep counts at which a checkpoint was written, in order.
    """

    def __init__(
        self, save: Callable[[], object], every: int | None = None, interrupt: Interrupt | None = None
    ) -> None:
        super().__init__(0)
        if every is not None and (isinstance(every, bool) or not isinstance(every, int) or every < 1):
            raise InvalidValueError(
                f"FolderCheckpoints: every must be a positive number of timesteps or None, got {every!r}"
            )
        self.save = save
        self.every = every
        self.interrupt = interrupt
        self.saved_at: list[int] = []
        self._last = 0

    def _on_training_start(self) -> None:
        self._last = int(self.num_timesteps)

    def _on_step(self) -> bool:
        if self.interrupt is not None and self.interrupt.requested:
            return False
        if self.every is not None and self.num_timesteps - self._last >= self.every:
            self.checkpoint()
        return True

    def checkpoint(self) -> None:
        """Save now (a second Ctrl-C waits for the save to end)."""
        if self.interrupt is not None:
            with self.interrupt.saving():
                self.save()
        else:
            self.save()
        self._last = int(self.num_timesteps)
        self.saved_at.append(self._last)
