"""Backends that play a list of games and hand back results as they finish.

Every backend takes the same :class:`GameConfig` and :class:`GameTask` list and calls
``on_results(rows)`` with finished games as rows of the results table (made by
:func:`~arena.tournament.store.result_row` where the game was played); the caller commits each
batch in one transaction. Since a game's result depends only on its task (seats, seed), all
backends give the same results.

* ``serial``: in the calling process, one game per commit.
* ``processes``: ``workers`` local processes; each receives chunks of tasks and sends its
  finished games back at once when a game took longer than ``FLUSH_SECONDS``, and otherwise
  at least every ``FLUSH_SECONDS`` (fast games travel and commit in small groups, so the parent
  does not wake up for every one of thousands of games a second). The parent commits whatever
  has arrived in one transaction (a group commit).
* ``ray``: see :mod:`arena.tournament.ray_backend`.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from typing import Any
from multiprocessing.connection import Connection, wait

from arena.errors import ArenaError
from arena.tournament.game import GameConfig, GameRunner
from arena.tournament.schedule import GameTask
from arena.tournament.store import result_row

__all__ = ["BACKENDS", "TournamentError", "run_serial", "run_processes", "chunked", "FLUSH_SECONDS"]

BACKENDS = ("serial", "processes", "ray")

# A worker holds finished fast games at most this long (plus one game) before sending them.
FLUSH_SECONDS = 0.005

Row = tuple[Any, ...]
OnResults = Callable[[list[Row]], None]


class TournamentError(ArenaError, RuntimeError):
    """A tournament could not go on (a worker died, the env failed to build)."""


def chunked(tasks: Sequence[GameTask], size: int) -> list[list[GameTask]]:
    """Split ``tasks`` into consecutive chunks of at most ``size``.

    Example:
        >>> [len(c) for c in chunked(list(range(5)), 2)]
        [2, 2, 1]
    """
    return [list(tasks[i:i + size]) for i in range(0, len(tasks), size)]


def default_chunk_size(pending: int, workers: int, most: int) -> int:
    """Enough chunks to balance the load at the end (8 per worker), none larger than ``most``."""
    return max(1, min(most, -(-pending // (workers * 8))))


def run_serial(config: GameConfig, tasks: Sequence[GameTask], on_results: OnResults,
               on_start: Callable[[], None] | None = None) -> None:
    """Play ``tasks`` one by one in this process."""
    runner = GameRunner(config).start()
    if on_start is not None:
        on_start()
    try:
        for task in tasks:
            on_results([result_row(runner.play(task))])
    finally:
        runner.stop()


def _worker_main(config: GameConfig, conn: Connection) -> None:
    """A worker process: play the chunks the parent sends, send each result as it ends."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides what Ctrl-C means
    parent_pid = os.getppid()  # the tournament's process, or the fork server that started us
    try:
        runner = GameRunner(config).start()
    except Exception:
        conn.send(("fatal", traceback.format_exc()))
        return
    try:
        while True:
            while not conn.poll(1.0):
                if os.getppid() != parent_pid:  # the parent was killed: stop quietly
                    return
            chunk = conn.recv()
            if chunk is None:
                return
            rows: list[Row] = []
            flushed = time.perf_counter()
            for task in chunk:
                rows.append(result_row(runner.play(task)))
                now = time.perf_counter()
                if now - flushed >= FLUSH_SECONDS:
                    conn.send(("games", rows))
                    rows, flushed = [], now
                    if os.getppid() != parent_pid:
                        return
            if rows:
                conn.send(("games", rows))
            conn.send(("chunk", None))
    except (EOFError, BrokenPipeError, ConnectionResetError):
        return
    except Exception:
        conn.send(("fatal", traceback.format_exc()))
    finally:
        runner.stop()


def _context(start_method: str | None) -> multiprocessing.context.BaseContext:
    if start_method is not None:
        return multiprocessing.get_context(start_method)
    methods = multiprocessing.get_all_start_methods()
    # fork starts in milliseconds, but is only safe while this process has a single thread.
    if "fork" in methods and threading.active_count() == 1:
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def run_processes(config: GameConfig, tasks: Sequence[GameTask], on_results: OnResults, *, workers: int,
                  chunk_size: int | None = None, start_method: str | None = None,
                  on_start: Callable[[], None] | None = None) -> None:
    """Play ``tasks`` on ``workers`` local processes.

    ``on_start`` is called once the workers run (a progress bar's thread started before
    would make forking unsafe, so this backend would fall back to a slower start method).

    Raises:
        TournamentError: a worker died or failed; the games already committed stay.
    """
    if not tasks:
        if on_start is not None:
            on_start()
        return
    size = chunk_size or default_chunk_size(len(tasks), workers, most=256)
    chunks = chunked(tasks, size)
    chunks.reverse()  # pop() from the end hands them out in schedule order
    context = _context(start_method)
    processes, connections = [], []
    for _ in range(min(workers, len(chunks))):
        parent_end, child_end = context.Pipe()
        process = context.Process(target=_worker_main, args=(config, child_end), daemon=True)
        process.start()
        child_end.close()
        processes.append(process)
        connections.append(parent_end)
    in_flight = dict.fromkeys(range(len(processes)), 0)
    if on_start is not None:
        on_start()
    try:
        # One chunk per worker at a time: a worker takes the next one only when it waits for it,
        # so neither side can block sending into a full pipe while the other does the same.
        for index, conn in enumerate(connections):
            conn.send(chunks.pop())
            in_flight[index] += 1
        sentinels = {process.sentinel: index for index, process in enumerate(processes)}
        watched = [*connections, *sentinels]
        while any(in_flight.values()):
            batch: list[Row] = []
            died = []
            for handle in wait(watched):
                index = sentinels[handle] if handle in sentinels else connections.index(handle)
                conn = connections[index]
                try:
                    while conn.poll():
                        kind, payload = conn.recv()
                        if kind == "games":
                            batch.extend(payload)
                        elif kind == "chunk":
                            in_flight[index] -= 1
                            if chunks:
                                conn.send(chunks.pop())
                                in_flight[index] += 1
                        else:
                            on_results(batch)
                            raise TournamentError(f"tournament: worker process {index} failed:\n{payload}")
                except (EOFError, OSError):
                    died.append(index)
                if handle in sentinels:
                    died.append(index)
            if batch:
                on_results(batch)
            for index in set(died):
                if in_flight[index]:
                    processes[index].join(timeout=1)
                    raise TournamentError(
                        f"tournament: worker process {index} died (exit code {processes[index].exitcode}) "
                        "in the middle of its games; the finished games are saved, run again to resume"
                    )
                watched = [h for h in watched if h is not connections[index] and h is not processes[index].sentinel]
        for conn in connections:
            try:
                conn.send(None)
            except OSError:
                pass
        for process in processes:
            process.join(timeout=10)
    finally:
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
        for conn in connections:
            conn.close()


def run_backend(backend: str, config: GameConfig, pending: Sequence[GameTask], commit: OnResults,
                started: Callable[[], None], workers: int | None, address: str | None, chunk_size: int | None) -> None:
    """Play ``pending`` on ``backend`` (``"serial"``, ``"processes"`` or ``"ray"``), committing as games end."""
    if backend == "serial":
        run_serial(config, pending, commit, on_start=started)
    elif backend == "processes":
        run_processes(config, pending, commit, workers=workers or 2, chunk_size=chunk_size, on_start=started)
    else:
        from arena.tournament.ray_backend import run_ray

        run_ray(config, pending, commit, workers=workers, address=address, chunk_size=chunk_size, on_start=started)
