"""The ViZDoom engine processes of one env: a temporary folder, a free port, their PIDs and their end.

Each player is a ``vizdoom.DoomGame`` in this process whose engine runs as a child process.
The env owns them through an :class:`EngineGroup`:

* **folder**: a temporary folder per group; engines run in it, so ViZDoom's ``_vizdoom/``
  folder, its ``_vizdoom.ini`` and the engines' console output (``engines.log``) land there
  and are deleted with it.
* **parent death**: the engine is started through a small launcher (written into that folder)
  that sets ``PR_SET_PDEATHSIG`` to ``SIGKILL`` before it executes the real engine. Linux then
  kills the engine when the thread that started it ends, which is a thread of the group's
  fixed pool, alive until :meth:`EngineGroup.close`, or the whole process (SIGKILL included).
* **PIDs**: the launcher writes its PID (the engine's, after ``exec``) into ``pids/`` before
  the engine starts, so the group can kill an engine that never answers, even during ``init``.
* **lockstep**: every player's ``make_action`` runs concurrently on the pool, one tic at a
  time (a multiplayer engine advances when every player has sent its tic; ``make_action``
  with more than one tic deadlocks in this mode). A group of one engine has nobody to wait
  for: its ``make_action`` runs all the tics of a step in one call.
"""

from __future__ import annotations

import os
import queue
import shlex
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from arena.errors import EngineError, MissingDependencyError

__all__ = ["EngineGroup", "free_port", "import_vizdoom"]

_LAUNCHER = """\
import ctypes, os, signal, sys
ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
if os.getppid() != {parent}:
    os._exit(70)  # the process that started us is already gone
open(os.path.join({pids!r}, str(os.getpid())), "w").close()
log = os.open({log!r}, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
os.dup2(log, 1)
os.dup2(log, 2)
os.chdir({folder!r})
os.execv({engine!r}, [{engine!r}, *sys.argv[1:]])
"""


def import_vizdoom(where: str) -> Any:
    """The ``vizdoom`` module, or a :class:`MissingDependencyError` naming the extra."""
    try:
        import vizdoom
    except ImportError as err:
        raise MissingDependencyError(
            f"{where} needs ViZDoom: pip install 'arena-marl[vizdoom]' (the vizdoom extra); import failed: {err}"
        ) from err
    return vizdoom


def free_port() -> int:
    """A UDP port on 127.0.0.1 that nothing is bound to now (Doom's network game is UDP)."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rsplit(b")", 1)[1].split()[0] != b"Z"  # a zombie has ended
    except (FileNotFoundError, IndexError, ProcessLookupError):
        return False


class EngineGroup:
    """The engines of one multiplayer game: started together, stepped in lockstep, ended together.

    Args:
        configure: ``configure(index, game)`` sets up player ``index``'s ``DoomGame`` (config,
            screen, host or join arguments) before ``init``.
        players: how many engines.
        connect_timeout: seconds for all engines to start and connect.
        where: the owner's name, for messages.
    """

    def __init__(
        self, configure: Callable[[int, Any], None], players: int, *, connect_timeout: float, where: str
    ) -> None:
        self.where = where
        self.vizdoom = import_vizdoom(where)
        self.folder = tempfile.mkdtemp(prefix="arena-vizdoom-")
        self._pid_folder = os.path.join(self.folder, "pids")
        os.mkdir(self._pid_folder)
        self.games: list[Any] = []
        self._ready = [False] * players
        self._pool = _Players(players, where)
        self._closed = False
        self._frozen = False
        self.tic_timeout = max(30.0, connect_timeout)
        try:
            self._start(configure, players, connect_timeout)
        except BaseException:
            self.close()
            raise

    @property
    def log_path(self) -> str:
        """Where the engines' console output goes."""
        return os.path.join(self.folder, "engines.log")

    def _start(self, configure: Callable[[int, Any], None], players: int, connect_timeout: float) -> None:
        launcher = os.path.join(self.folder, "launch.py")
        with open(launcher, "w") as out:
            out.write(
                _LAUNCHER.format(
                    parent=os.getpid(),
                    pids=self._pid_folder,
                    log=self.log_path,
                    folder=self.folder,
                    engine=os.path.join(os.path.dirname(self.vizdoom.__file__), "vizdoom"),
                )
            )
        engine = os.path.join(self.folder, "vizdoom")
        with open(engine, "w") as out:  # ViZDoom runs an executable; this one runs the launcher
            out.write(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -S {shlex.quote(launcher)} "$@"\n')
        os.chmod(engine, 0o700)
        for index in range(players):
            game = self.vizdoom.DoomGame()
            game.set_vizdoom_path(engine)
            game.set_window_visible(False)
            configure(index, game)
            self.games.append(game)
        deadline = time.monotonic() + connect_timeout
        futures = []
        for index in range(players):
            # One engine launch at a time: two DoomGame.init calls starting engines at the same
            # moment crashed the process (in a pytest run with torch, ray and pygame loaded).
            futures.append(self._pool.submit(index, self._init, index))
            while len(os.listdir(self._pid_folder)) <= index and not futures[-1].done() and time.monotonic() < deadline:
                time.sleep(0.01)
            time.sleep(0.05)
        try:
            for future in futures:
                future.result(timeout=max(0.0, deadline - time.monotonic()))
        except FutureTimeout:
            # ViZDoom crashes the whole process when an engine ends while its init waits, so the
            # engines are frozen instead; they end with this process (their launcher's
            # parent-death signal), as the init threads never return.
            self._frozen = True
            for pid in self.pids():
                os.kill(pid, signal.SIGSTOP)
            raise EngineError(
                f"{self.where}: the {players} ViZDoom engines did not all start and connect within "
                f"{connect_timeout:g} s (player {index} had not finished init); the engines are stopped "
                f"(SIGSTOP: ViZDoom crashes if they end during init) and end with this process"
            ) from None
        except Exception as err:
            self.kill()
            raise EngineError(
                f"{self.where}: ViZDoom engine of player {index} failed to start: {type(err).__name__}: {err}"
            ) from err

    def _init(self, index: int) -> None:
        self.games[index].init()
        self._ready[index] = True

    # ----------------------------------------------------------------- processes
    def pids(self) -> list[int]:
        """The PIDs of the engines started so far that are still running."""
        try:
            found = [int(name) for name in os.listdir(self._pid_folder)]
        except FileNotFoundError:
            return []
        return sorted(pid for pid in found if _alive(pid))

    def kill(self) -> None:
        """SIGKILL every engine of the group that is still running, by PID."""
        for pid in self.pids():
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    # -------------------------------------------------------------------- play
    def act(self, vectors: Sequence[list[float]], tics: int) -> None:
        """Give each player its button vector for ``tics`` tics, one tic at a time, in lockstep.

        A lone engine runs the ``tics`` in one ``make_action`` (no other player to keep step with).
        """
        if len(self.games) == 1:
            self._wait([self._pool.submit(0, self.games[0].make_action, vectors[0], tics)])
            return
        # One tic at a time, every player's make_action on its own thread, all finished before
        # the next tic: an engine let run ahead of the slowest one can block in make_action for good.
        for _ in range(tics):
            if self.games[0].is_episode_finished():
                return
            self._wait(
                [
                    self._pool.submit(index, game.make_action, vector, 1)
                    for index, (game, vector) in enumerate(zip(self.games, vectors))
                ]
            )

    def _wait(self, futures: list[Future]) -> None:
        try:
            for future in futures:
                future.result(timeout=self.tic_timeout)
        except FutureTimeout:
            self.kill()
            raise EngineError(
                f"{self.where}: a ViZDoom engine did not finish a step within {self.tic_timeout:g} s; engines killed"
            ) from None

    def map(self, function: Callable[[Any], Any]) -> list[Any]:
        """``function(game)`` for every game, concurrently (for calls that wait on the others)."""
        futures = [self._pool.submit(index, function, game) for index, game in enumerate(self.games)]
        return [future.result() for future in futures]

    # ------------------------------------------------------------------- close
    def close(self, timeout: float = 5.0) -> None:
        """End every engine (politely, then SIGKILL by PID), the pool and the folder; idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._frozen:  # see _start: ending them would crash the process
            self._pool.shutdown()
            return
        try:  # close() on a game whose init failed can crash the process: those are killed
            futures = [
                self._pool.submit(index, game.close) for index, game in enumerate(self.games) if self._ready[index]
            ]
        except RuntimeError:  # the interpreter is shutting down: no new threads, so kill only
            futures = []
        if futures:
            deadline = time.monotonic() + timeout
            for future in futures:
                try:
                    future.result(timeout=max(0.0, deadline - time.monotonic()))
                except Exception:  # noqa: BLE001 - an engine that does not close is killed below
                    pass
        self.kill()
        for pid in os.listdir(self._pid_folder) if os.path.isdir(self._pid_folder) else ():
            try:
                os.waitpid(int(pid), os.WNOHANG)  # reap it unless ViZDoom already has
            except ChildProcessError:
                pass
        self._pool.shutdown()
        self.games = []
        shutil.rmtree(self.folder, ignore_errors=True)


class _Players:
    """One daemon thread per player, for the life of the group.

    Player ``i``'s calls always run on thread ``i``, the thread that started its engine (the
    engine's parent-death signal follows that thread). Daemon threads, so that an init that
    never returns cannot keep the interpreter from exiting.
    """

    def __init__(self, players: int, where: str) -> None:
        self._queues: list[queue.SimpleQueue] = [queue.SimpleQueue() for _ in range(players)]
        self._open = True
        self._threads = [
            threading.Thread(target=self._serve, args=(jobs,), name=f"arena-vizdoom-{index}", daemon=True)
            for index, jobs in enumerate(self._queues)
        ]
        for thread in self._threads:
            thread.start()

    @staticmethod
    def _serve(jobs: queue.SimpleQueue) -> None:
        while True:
            job = jobs.get()
            if job is None:
                return
            _Players._run(*job)

    @staticmethod
    def _run(future: Future, function: Callable[..., Any], args: tuple[Any, ...]) -> None:
        if future.set_running_or_notify_cancel():
            try:
                future.set_result(function(*args))
            except BaseException as err:  # noqa: BLE001 - handed to the caller through the future
                future.set_exception(err)

    def submit(self, index: int, function: Callable[..., Any], *args: Any) -> Future:
        if not self._open:
            raise RuntimeError("the player threads are shut down")
        future: Future = Future()
        if threading.current_thread() is self._threads[index]:
            # A call from the player's own thread (the env collected there by the garbage
            # collector, say) would wait on itself: it runs now instead.
            self._run(future, function, args)
            return future
        self._queues[index].put((future, function, args))
        return future

    def shutdown(self) -> None:
        if self._open:
            self._open = False
            for jobs in self._queues:
                jobs.put(None)
