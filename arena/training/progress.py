"""Progress callbacks for Stable-Baselines3: a rich progress bar, or plain progress lines for logs.

``arena train`` adds one of them to its callbacks (``--progress``); the evaluation callback's
:class:`~arena.training.callbacks.OnEvaluationCallback` shows the last evaluation on it through
``set_status``.

This module imports Stable-Baselines3 when it is imported (its classes derive from SB3's
``BaseCallback``); a missing install raises an ImportError naming the ``train`` extra.
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, TextIO

from arena.training.policy_agent import require_sb3

require_sb3()
from stable_baselines3.common.callbacks import BaseCallback  # noqa: E402

from arena.errors import InvalidValueError

__all__ = ["ProgressLinesCallback", "RichProgressCallback"]


class RichProgressCallback(BaseCallback):
    """A rich progress bar over timesteps, with a status line the caller can update.

    Args:
        total_timesteps: the length of the bar.
        description: the text before the bar.
        console: a ``rich.console.Console`` to draw on (default: stderr).

    Raises:
        ImportError: rich is missing (names the extra to install).
    """

    def __init__(self, total_timesteps: int, description: str = "training", console: Any = None) -> None:
        super().__init__(0)
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )
        except ImportError as err:
            raise ImportError(
                f"RichProgressCallback needs rich ({err}); install the 'train' extra: pip install 'arena-marl[train]'"
            ) from err
        self.total_timesteps = int(total_timesteps)
        self.description = description
        self.progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("steps"),
            TimeElapsedColumn(),
            TextColumn("eta"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[status]}"),
            console=console if console is not None else Console(stderr=True),
            transient=False,
        )
        self._task: Any = None

    def set_status(self, text: str) -> None:
        """Show ``text`` after the bar (e.g. the latest win rate)."""
        if self._task is not None:
            self.progress.update(self._task, status=text)

    def _on_training_start(self) -> None:
        self.progress.start()
        self._task = self.progress.add_task(self.description, total=self.total_timesteps, status="")

    def _on_step(self) -> bool:
        self.progress.update(self._task, completed=min(self.num_timesteps, self.total_timesteps))
        return True

    def _on_training_end(self) -> None:
        self.progress.update(self._task, completed=min(self.num_timesteps, self.total_timesteps))
        self.progress.stop()


class ProgressLinesCallback(BaseCallback):
    """Plain progress lines for logs: steps, rate, eta and the last evaluation, every ``every`` seconds.

    For output that is not a terminal (a log file, a pipe, CI), where a progress bar shows
    nothing until the end. A line is printed when training starts, after each evaluation
    (:meth:`set_status`), at the end, and at least every ``every`` seconds in between: a
    background thread keeps the cadence while SB3 updates the network or the evaluation
    games run, so a log shows the run is alive. Each line is flushed at once.

    Args:
        total_timesteps: the timesteps this run trains.
        description: the text that starts each line (``"train pommerman"``).
        every: seconds between lines at most.
        stream: where to print (default: stderr).

    Example:
        >>> import io
        >>> lines = ProgressLinesCallback(1000, "train tic_tac_toe", stream=io.StringIO())
        >>> lines.line(steps=250, elapsed=5.0)
        'train tic_tac_toe: 250/1,000 steps (25%), 50 steps/s, eta 15s'
    """

    def __init__(
        self, total_timesteps: int, description: str = "training", every: float = 30.0, stream: TextIO | None = None
    ) -> None:
        super().__init__(0)
        if not every > 0:
            raise InvalidValueError(f"ProgressLinesCallback: every must be a positive number of seconds, got {every!r}")
        self.total_timesteps = int(total_timesteps)
        self.description = description
        self.every = float(every)
        self.stream = stream
        self.status = ""
        self._first = 0
        self._steps = 0
        self._started = 0.0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def line(self, steps: int, elapsed: float) -> str:
        """The progress line after ``steps`` of this run's timesteps in ``elapsed`` seconds."""
        rate = steps / elapsed if elapsed > 0 else 0.0
        eta = (self.total_timesteps - steps) / rate if rate > 0 else None
        share = steps / self.total_timesteps if self.total_timesteps else 1.0
        text = (
            f"{self.description}: {steps:,}/{self.total_timesteps:,} steps ({share:.0%}), {rate:,.0f} steps/s, "
            f"eta {_duration(eta) if eta is not None else '?'}"
        )
        return f"{text}, {self.status}" if self.status else text

    def set_status(self, text: str) -> None:
        """Record the last evaluation and print a line with it now."""
        with self._lock:
            self.status = text
        self._print()

    def _print(self) -> None:
        with self._lock:
            text = self.line(self._steps, time.perf_counter() - self._started)
        print(text, file=self.stream if self.stream is not None else sys.stderr, flush=True)

    def _beat(self) -> None:
        while not self._stop.wait(self.every):
            self._print()

    def _on_training_start(self) -> None:
        self._first = int(self.num_timesteps)
        self._started = time.perf_counter()
        self._stop.clear()
        self._print()
        self._thread = threading.Thread(target=self._beat, name="arena-progress-lines", daemon=True)
        self._thread.start()

    def _on_step(self) -> bool:
        self._steps = min(int(self.num_timesteps) - self._first, self.total_timesteps)
        return True

    def _on_training_end(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        self._print()


def _duration(seconds: float) -> str:
    """``"15s"``, ``"4m05s"``, ``"2h03m"``."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
