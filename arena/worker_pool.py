"""Where a worker batch's games run: :class:`WorkerPool` (worker processes) or :class:`InProcess`.

Both take the same calls, ``call(name, items, *extra)`` with one item per game (a game index,
or a tuple whose first element is one) and give one :class:`arena.worker_games.GameRow` per
item, in order; both raise a game's error as :class:`arena.errors.WorkerError` naming the game.
"""

from __future__ import annotations

import multiprocessing
import pickle
import traceback
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from arena.errors import InvalidValueError, WorkerError
from arena.worker_games import Description, GameRow, GameSlots, serve

__all__ = ["InProcess", "WorkerPool"]

#: Seconds a worker has to close its envs and exit before it is killed.
CLOSE_TIMEOUT = 5.0


def _game(item: Any) -> int:
    return int(item[0] if isinstance(item, tuple) else item)


def _error(where: str, game: int | None, kind: str, message: str, text: str) -> WorkerError:
    at = f"game {game}" if game is not None else "building the envs"
    return WorkerError(
        f"{where}: {at} raised {kind}: {message}\n--- traceback in the worker ---\n{text.rstrip()}",
        game=game,
        worker_traceback=text,
    )


class InProcess:
    """Every game in this process (``num_workers=0``): the same games as the workers play, for tests and debugging."""

    def __init__(self, make_env: Callable[[], Any], num_games: int) -> None:
        self._make_env, self._num_games = make_env, num_games
        self._slots: GameSlots | None = None
        #: The batch's name, in errors.
        self.where = "in-process batch"
        self.closed = False

    def start(self) -> Description:
        try:
            self._slots = GameSlots(self._make_env, range(self._num_games))
        except Exception as error:
            self.closed = True
            raise _error(self.where, None, type(error).__name__, str(error), traceback.format_exc()) from error
        return self._slots.description

    def call(self, name: str, items: Sequence[Any], *extra: Any) -> list[GameRow]:
        slots = self._slots
        if slots is None:
            raise WorkerError(f"{self.where}: the envs were not built")
        try:
            return list(getattr(slots, name)(items, *extra))
        except Exception as error:
            text = traceback.format_exc()
            raise _error(self.where, slots.current, type(error).__name__, str(error), text) from error

    def close(self) -> None:
        if self._slots is not None and not self.closed:
            self._slots.close()
        self.closed = True


class WorkerPool:
    """``num_workers`` processes, each playing a contiguous block of the games over one pipe.

    Args:
        make_env: builds one env; cloudpickled to the workers.
        num_games: games in all.
        num_workers: processes, 1 to ``num_games``.
        context: ``"forkserver"`` (default where available) or ``"spawn"``.
    """

    def __init__(self, make_env: Callable[[], Any], num_games: int, num_workers: int, context: str | None) -> None:
        import cloudpickle

        methods = multiprocessing.get_all_start_methods()
        method = context or ("forkserver" if "forkserver" in methods else "spawn")
        if method not in ("forkserver", "spawn") or method not in methods:
            raise InvalidValueError(
                f"context must be one of {[m for m in ('forkserver', 'spawn') if m in methods]} on this platform "
                f"(a fork would copy engine threads), got {context!r}"
            )
        ctx: Any = multiprocessing.get_context(method)
        blocks = [block.tolist() for block in np.array_split(np.arange(num_games), num_workers)]
        self._owner = {g: w for w, block in enumerate(blocks) for g in block}
        self._blocks = blocks
        factory = cloudpickle.dumps(make_env)
        self._pipes, self._processes = [], []
        for block in blocks:
            parent, child = ctx.Pipe()
            process = ctx.Process(target=serve, args=(child, factory, block), daemon=True)
            process.start()
            child.close()  # the worker holds the only copy: its death closes the pipe, which recv sees
            self._pipes.append(parent)
            self._processes.append(process)
        #: The batch's name, in errors.
        self.where = "worker batch"
        self._finalizer = weakref.finalize(self, _shut_down, self._pipes, self._processes)

    @property
    def closed(self) -> bool:
        return not self._finalizer.alive

    @property
    def pids(self) -> list[int | None]:
        """The workers' process ids."""
        return [process.pid for process in self._processes]

    def start(self) -> Description:
        descriptions = self._exchange({w: ("start", None) for w in range(len(self._pipes))})
        return descriptions[0]

    def call(self, name: str, items: Sequence[Any], *extra: Any) -> list[GameRow]:
        by_worker: dict[int, list[Any]] = {}
        for item in items:
            by_worker.setdefault(self._owner[_game(item)], []).append(item)
        answers = self._exchange({w: (name, (part, *extra)) for w, part in by_worker.items()})
        rows: dict[int, GameRow] = {}
        for w, part in by_worker.items():
            rows.update(zip((_game(item) for item in part), answers[w]))
        return [rows[_game(item)] for item in items]

    def close(self) -> None:
        self._finalizer()

    def _exchange(self, commands: dict[int, tuple[str, Any]]) -> dict[int, Any]:
        """Send each worker its command, then read every answer (so the pipes stay in step), raising the first error."""
        for w, command in commands.items():
            self._send(w, command)
        answers, errors = {}, []
        for w in commands:
            status, value = self._receive(w)
            if status == "ok":
                answers[w] = value
            else:
                errors.append(value)
        if errors:
            game, kind, message, text, sent = min(errors, key=lambda e: -1 if e[0] is None else e[0])
            error = _error(self.where, game, kind, message, text)
            cause = _unpickled(sent)
            if commands[next(iter(commands))][0] == "start":
                self.close()
            raise error from cause
        return answers

    def _send(self, w: int, command: tuple[str, Any]) -> None:
        try:
            self._pipes[w].send(command)
        except (BrokenPipeError, ConnectionResetError, EOFError):
            raise self._died(w) from None

    def _receive(self, w: int) -> tuple[str, Any]:
        try:
            return self._pipes[w].recv()
        except (EOFError, ConnectionResetError, OSError):
            raise self._died(w) from None

    def _died(self, w: int) -> WorkerError:
        process = self._processes[w]
        process.join(timeout=1.0)
        self.close()
        return WorkerError(
            f"{self.where}: worker {w} (pid {process.pid}, games {self._blocks[w]}) died "
            f"(exit code {process.exitcode}); the batch is closed. Its output above says why (a script that "
            "builds a worker batch must do so under `if __name__ == '__main__':`, as multiprocessing requires)"
        )


def _unpickled(sent: bytes | None) -> BaseException | None:
    if sent is None:
        return None
    try:
        cause = pickle.loads(sent)
    except Exception:  # an exception class the parent cannot rebuild: the text is in the message
        return None
    return cause if isinstance(cause, BaseException) else None


def _shut_down(pipes: list[Any], processes: list[Any]) -> None:
    """Ask every worker to close its envs and exit; kill, by PID, the ones that do not within :data:`CLOSE_TIMEOUT`."""
    for pipe in pipes:
        try:
            pipe.send(("close", None))
        except (OSError, EOFError):
            pass
    for pipe in pipes:
        try:
            if pipe.poll(CLOSE_TIMEOUT):
                pipe.recv()
        except (OSError, EOFError):
            pass
        pipe.close()
    for process in processes:
        process.join(timeout=CLOSE_TIMEOUT)
        if process.is_alive():
            process.kill()
            process.join(timeout=CLOSE_TIMEOUT)
