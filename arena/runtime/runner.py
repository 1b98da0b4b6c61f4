"""Backends that play a list of games and hand back results as they finish.

Every backend takes the same :class:`GameConfig` and :class:`GameTask` list and calls
``on_results(rows)`` with finished games as rows of the results table (made by
:func:`~arena.runtime.store.result_row` where the game was played); the caller commits each
batch in one transaction. Since a game's result depends only on its task (seats, seed), all
backends give the same results.

* ``serial``: one game at a time in one watched worker process (below), so that an entrant
  that ends its process, or a move past the time limit, costs a forfeit and not the run.
* ``inline``: in the calling process, one game per commit, for debugging (a breakpoint in an
  agent works); nothing protects the run from an entrant that ends the process, and there is
  no move time limit.
* ``processes``: ``workers`` local processes; each receives chunks of tasks and sends its
  finished games back at once when a game took longer than ``FLUSH_SECONDS``, and otherwise
  at least every ``FLUSH_SECONDS`` (fast games travel and commit in small groups, so the parent
  does not wake up for every one of thousands of games a second). The parent commits whatever
  has arrived in one transaction (a group commit).
* ``ray``: see :mod:`arena.runtime.ray_backend`, which builds on this module (this module
  never imports it: :func:`arena.tournament.session.play_games` picks the backend).

Workers start with the ``forkserver`` method by default (``spawn`` where there is none): a
forked child of a process that runs threads (torch's OpenMP pool, a progress bar) can hang on
a lock held by a thread that was not copied. ``fork`` is available on request.

The parent watches its workers (:class:`~arena.runtime.guard.SeatWatch`). A worker that
dies in the middle of a game (an entrant called ``os._exit`` or crashed the interpreter) costs
the entrant that was being called a forfeit, stored with the reason; a move that runs past the
time limit by ``grace_seconds`` gets its worker killed and the move forfeited. Either way a new
worker takes over the rest of the chunk and the tournament goes on; a rerun finds the forfeit
stored and does not play that game again.
"""

from __future__ import annotations

import collections
import itertools
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any

from arena.errors import InvalidValueError, TournamentError
from arena.runtime.game import (
    GameConfig,
    GameRunner,
    GameTask,
    Layout,
    error_result,
    forfeit_result,
)
from arena.runtime.guard import PHASES, SeatWatch, end_process, orders_from_parent, user_interrupted
from arena.runtime.processes import contained, ending_what_starts, new_tag
from arena.runtime.store import result_row

__all__ = ["BACKENDS", "START_METHODS", "run_serial", "run_processes", "chunked", "FLUSH_SECONDS", "grace_seconds"]

BACKENDS = ("serial", "inline", "processes", "ray")
START_METHODS = ("forkserver", "spawn", "fork")

# A worker holds finished fast games at most this long (plus one game) before sending them.
FLUSH_SECONDS = 0.005

Row = tuple[Any, ...]
OnResults = Callable[[list[Row]], None]


def chunked(tasks: Iterable[GameTask], size: int) -> Iterator[list[GameTask]]:
    """Consecutive chunks of at most ``size`` tasks, made as they are taken.

    Example:
        >>> [len(c) for c in chunked(range(5), 2)]
        [2, 2, 1]
    """
    source = iter(tasks)
    while chunk := list(itertools.islice(source, size)):
        yield chunk


class ChunkQueue:
    """The chunks still to play: given-back chunks first (a lost worker's unplayed games), then
    new ones cut from ``tasks`` only when taken, so the pending games are never all in memory.

    Example:
        >>> queue = ChunkQueue(range(5), 2)
        >>> queue.popleft(), bool(queue)
        ([0, 1], True)
        >>> queue.appendleft([1]); queue.popleft(), queue.popleft(), queue.popleft(), bool(queue)
        ([1], [2, 3], [4], False)
    """

    def __init__(self, tasks: Iterable[Any], size: int) -> None:
        self._source = chunked(tasks, size)
        self._back: collections.deque[list[Any]] = collections.deque()
        self._next = next(self._source, None)

    def __bool__(self) -> bool:
        return bool(self._back) or self._next is not None

    def popleft(self) -> list[Any]:
        if self._back:
            return self._back.popleft()
        chunk = self._next
        if chunk is None:
            raise IndexError("no chunk left")
        self._next = next(self._source, None)
        return chunk

    def appendleft(self, chunk: list[Any]) -> None:
        self._back.appendleft(chunk)


class Pending:
    """The games of ``tasks`` not stored yet, picked out as they are iterated (no list of them).

    Args:
        tasks: the games asked for, in order (a :class:`~arena.tournament.schedule.Schedule`).
        stored: whether a game is already in the results file (asked when it is reached, so
            a game committed meanwhile is skipped too).
        count: how many of ``tasks`` are not stored (``len`` of this object).

    Example:
        >>> pending = Pending(range(6), lambda task: task % 3 == 0, count=4)
        >>> len(pending), list(pending)
        (4, [1, 2, 4, 5])
    """

    def __init__(self, tasks: Iterable[Any], stored: Callable[[Any], bool], count: int) -> None:
        self._tasks, self._stored, self._count = tasks, stored, count

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[Any]:
        stored = self._stored
        return (task for task in self._tasks if not stored(task))


def default_chunk_size(pending: int, workers: int, most: int) -> int:
    """Enough chunks to balance the load at the end (8 per worker), none larger than ``most``."""
    return max(1, min(most, -(-pending // (workers * 8))))


def grace_seconds(move_time_limit: float) -> float:
    """How long past the move time limit the parent waits before it kills a worker.

    The agent's own process interrupts the move at the limit (a forfeit that keeps the worker);
    the parent steps in only for a move that swallowed that interrupt or is stuck in C code.

    Example:
        >>> grace_seconds(0.2), grace_seconds(8), grace_seconds(100)
        (0.5, 2.0, 5.0)
    """
    return min(max(0.5, 0.25 * move_time_limit), 5.0)


def run_serial(
    config: GameConfig,
    tasks: Sequence[GameTask] | Pending,
    on_results: OnResults,
    on_start: Callable[[], None] | None = None,
    start_method: str | None = None,
) -> None:
    """Play ``tasks`` one by one in one watched worker process: an entrant that ends that process
    (``os._exit``, a segfault) forfeits and the worker is replaced, as with more workers."""
    run_processes(config, tasks, on_results, workers=1, on_start=on_start, start_method=start_method)


def run_inline(
    config: GameConfig,
    tasks: Sequence[GameTask] | Pending,
    on_results: OnResults,
    on_start: Callable[[], None] | None = None,
) -> None:
    """Play ``tasks`` one by one in this process: for debugging (breakpoints in agents work), with
    no protection against an entrant that ends the process and no move time limit."""
    with ending_what_starts():
        runner = GameRunner(config).start()
        restore = _watch_ctrl_c()
        if on_start is not None:
            on_start()
        try:
            for task in tasks:
                on_results([result_row(runner.play(task))])
        finally:
            restore()
            runner.stop()


def _watch_ctrl_c() -> Callable[[], None]:
    """Record a real Ctrl-C (so that an agent's own ``KeyboardInterrupt`` is only its forfeit)."""
    if (
        threading.current_thread() is not threading.main_thread()
        or signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        return lambda: None

    def on_sigint(signum: int, frame: Any) -> None:
        user_interrupted(True)
        raise KeyboardInterrupt

    user_interrupted(False)
    signal.signal(signal.SIGINT, on_sigint)

    def restore() -> None:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        user_interrupted(False)

    return restore


def _worker_main(config: GameConfig, conn: Connection, state: Any) -> None:
    """A worker process: play the chunks the parent sends, send each result as it ends.

    ``state[0]`` holds the position in the current chunk of the game being played; the guards
    fill the rest (see :class:`~arena.runtime.guard.SeatWatch`).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    parent_pid = os.getppid()  # the tournament's process, or the fork server that started us
    try:
        runner = GameRunner(config, watch_state=state).start()
        conn.send(("ready", runner.layout()))
    except Exception:
        conn.send(("fatal", traceback.format_exc()))
        return
    try:
        for chunk in orders_from_parent(conn, parent_pid):
            rows: list[Row] = []
            flushed = time.perf_counter()
            for position, task in enumerate(chunk):
                state[0] = position
                rows.append(result_row(runner.play(task)))
                now = time.perf_counter()
                if now - flushed >= FLUSH_SECONDS:
                    conn.send(("games", rows))
                    rows, flushed = [], now
                    if os.getppid() != parent_pid:
                        return
            state[0] = -1
            if rows:
                conn.send(("games", rows))
            conn.send(("chunk", None))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return
    except Exception:
        conn.send(("fatal", traceback.format_exc()))
    finally:
        runner.stop()


def start_context(start_method: str | None = None) -> multiprocessing.context.BaseContext:
    """The multiprocessing context workers start from: ``forkserver`` by default (``spawn`` where
    the platform has no fork server), or ``start_method`` when given.

    Raises:
        ValueError: a start method this platform does not offer.
    """
    methods = multiprocessing.get_all_start_methods()
    if start_method is None:
        start_method = "forkserver" if "forkserver" in methods else "spawn"
    if start_method not in START_METHODS or start_method not in methods:
        offered = [method for method in START_METHODS if method in methods]
        raise InvalidValueError(f"tournament: start_method must be one of {', '.join(offered)}, got {start_method!r}")
    context = multiprocessing.get_context(start_method)
    if start_method == "forkserver":
        # The fork server imports arena once; each worker forks from it with arena loaded.
        context.set_forkserver_preload(["arena.runtime.runner"])
    return context


class _Worker:
    """The parent's view of one worker process."""

    def __init__(self, context: Any, config: GameConfig) -> None:
        self.state = SeatWatch.shared_record(context)
        self.conn, child_end = context.Pipe()
        self.tag = new_tag()  # marks the processes its games start, which end with it
        self.process = context.Process(
            target=contained, args=(self.tag, _worker_main, config, child_end, self.state), daemon=True
        )
        self.process.start()
        child_end.close()
        self.chunk: list[GameTask] | None = None
        self.returned: set[tuple[str, int]] = set()
        self.ready = False
        self.layout: Layout | None = None
        self.names = [spec.name for spec in config.agents]

    def give(self, chunk: list[GameTask]) -> None:
        self.chunk, self.returned = chunk, set()
        self.conn.send(chunk)

    def receive(self, batch: list[Row]) -> str | None:
        """Read every waiting message; returns a worker's fatal error text, if one came."""
        while self.conn.poll():
            kind, payload = self.conn.recv()
            if kind == "games":
                batch.extend(payload)
                self.returned.update((row[0], row[1]) for row in payload)
            elif kind == "chunk":
                self.chunk = None
            elif kind == "ready":
                self.ready = True
                self.layout = tuple(tuple(ids) for ids in payload)
            else:
                return str(payload)
        return None

    def overdue(self, now: float, grace: float) -> bool:
        return SeatWatch.overdue(self.state, now, grace)

    def stop(self) -> None:
        end_process(self.process, self.tag)
        self.conn.close()


def run_processes(
    config: GameConfig,
    tasks: Sequence[GameTask] | Pending,
    on_results: OnResults,
    *,
    workers: int,
    chunk_size: int | None = None,
    start_method: str | None = None,
    on_start: Callable[[], None] | None = None,
) -> None:
    """Play ``tasks`` on ``workers`` local processes, replacing any that an entrant ends.

    Args:
        start_method: ``"forkserver"`` (default where available), ``"spawn"`` or ``"fork"``;
            results are the same whatever the method.
        on_start: called once the workers run.

    Raises:
        TournamentError: a worker failed on its own (not an entrant's fault: the env could not be
            built), or workers kept dying before playing; the games already committed stay.
    """
    if not tasks:
        if on_start is not None:
            on_start()
        return
    size = chunk_size or default_chunk_size(len(tasks), workers, most=256)
    chunks = ChunkQueue(tasks, size)
    context = start_context(start_method)
    limit = config.move_time_limit
    grace = grace_seconds(limit) if limit is not None else 0.0
    pool = [_Worker(context, config) for _ in range(min(workers, -(-len(tasks) // size)))]
    layout: Layout | None = None  # the env agents of each place of a task, once a worker says
    failed_starts = 0
    if on_start is not None:
        on_start()
    try:
        for worker in pool:
            worker.give(chunks.popleft())
        while pool:
            timeout = None if limit is None else min(0.25, grace)
            handles = [h for worker in pool for h in (worker.conn, worker.process.sentinel)]
            wait(handles, timeout)
            batch: list[Row] = []
            lost: list[_Worker] = []
            finished: list[_Worker] = []
            now = time.monotonic()
            for worker in pool:
                try:
                    fatal = worker.receive(batch)
                except (EOFError, OSError):
                    fatal = None
                if fatal is not None:
                    on_results(batch)
                    raise TournamentError(f"tournament: worker process {worker.process.pid} failed:\n{fatal}")
                if worker.layout is not None:
                    layout = worker.layout
                if not worker.process.is_alive() or (limit is not None and worker.overdue(now, grace)):
                    lost.append(worker)
                elif worker.chunk is None:
                    if chunks:
                        worker.give(chunks.popleft())
                    else:
                        worker.conn.send(None)
                        finished.append(worker)
            if batch:
                on_results(batch)
            for worker in finished:
                pool.remove(worker)
                worker.process.join(timeout=10)
                worker.stop()
            for worker in lost:
                pool.remove(worker)
                rows, requeue = _take_over(worker, layout, limit, grace)
                if not worker.ready:
                    failed_starts += 1
                    if failed_starts >= 3:
                        raise TournamentError(
                            f"tournament: worker processes keep dying before their first game "
                            f"({_exit_text(worker.process.exitcode)}); the finished games are saved, run again to resume"
                        )
                if rows:
                    on_results(rows)
                if requeue:
                    chunks.appendleft(requeue)
                if chunks:
                    replacement = _Worker(context, config)
                    replacement.give(chunks.popleft())
                    pool.append(replacement)
    finally:
        for worker in pool:
            worker.stop()


def _take_over(
    worker: _Worker, layout: Layout | None, limit: float | None, grace: float
) -> tuple[list[Row], list[GameTask]]:
    """End a lost worker; returns the row charging its current game and the games to play again."""
    overdue = limit is not None and worker.process.is_alive() and worker.overdue(time.monotonic(), grace)
    worker.stop()  # kill first, then read: the record cannot change any more
    exitcode = worker.process.exitcode
    position, entrant, phase, deadline = (
        int(worker.state[0]),
        int(worker.state[1]),
        int(worker.state[2]),
        worker.state[3],
    )
    chunk = worker.chunk or []
    left = [task for task in chunk if (task.lineup, task.index) not in worker.returned]
    current = chunk[position] if 0 <= position < len(chunk) else None
    if current is None or current not in left or layout is None:
        return [], left  # nothing to charge: play what is left again
    names = worker.names
    rows: list[Row] = []
    if 0 <= entrant < len(names) and current is not None:
        name = names[entrant]
        if overdue and phase == PHASES.index("act"):
            late = time.monotonic() - (deadline - limit)
            reason = (
                f"exceeded the move time limit of {limit:g} s (did not answer the interrupt; "
                f"its worker process was killed after {late:.1f} s)"
            )
        elif overdue:
            return [], left  # the move ended just before the kill: nobody to charge, play it again
        else:
            reason = f"ended its worker process during {PHASES[phase] or 'the game'}() ({_exit_text(exitcode)})"
        rows.append(result_row(forfeit_result(current, layout, name, reason)))
    else:
        rows.append(
            result_row(
                error_result(
                    current, layout, f"the worker process died outside any agent call ({_exit_text(exitcode)})"
                )
            )
        )
    return rows, [task for task in left if task is not current]


def _exit_text(exitcode: int | None) -> str:
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}"
