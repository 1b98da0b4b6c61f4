"""A worker's processes end with it: whatever an entrant or an env starts, even in a new session.

An entrant may start processes of its own (an engine, a helper, ``setsid sleep``); a process
started with ``setsid`` leaves the worker's process group, so ending the group does not reach
it, and it keeps the tournament's stdout open (``arena tournament ... | tee log`` would wait for
it). So each worker process is run by :func:`contained`:

* on Linux it makes itself a *child subreaper* (``prctl(PR_SET_CHILD_SUBREAPER)``), so that a
  descendant whose parent ends is adopted by the worker instead of by init: every process the
  worker's games started stays in the worker's tree while the worker lives;
* it marks its environment with a tag (:data:`TAG`), which programs it starts inherit;
* when its work is done it ends every descendant (stopped first, so none can fork away).

Entrants a tournament (or ``arena serve``) builds in its own process, to check them before the
games, are built inside :func:`ending_what_starts`, which ends what they started once they are
checked; an inline run (``--backend inline``) plays inside it too.

The parent ends a worker with :func:`end_tree`: it stops the worker and its descendants with
``SIGSTOP`` until no new one appears, then kills them all, so no process escapes while the
tree is taken apart. A worker that ended on its own (``os._exit`` in an entrant, a segfault)
has no tree left; its descendants were adopted by init, and :func:`end_tree` finds the ones
that carry the worker's tag in their environment (``/proc/PID/environ``).

What is not covered: processes that clear their environment *and* were orphaned by a worker
that ended itself, and platforms without ``/proc`` (there only the worker itself is ended).
"""

from __future__ import annotations

import ctypes
import os
import secrets
import signal
import sys
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["TAG", "new_tag", "contained", "ending_what_starts", "descendants", "tagged", "end_tree"]

# The environment variable that marks the processes a worker started.
TAG = "ARENA_WORKER_TAG"
_PR_SET_CHILD_SUBREAPER = 36
_PROC = "/proc"


def new_tag() -> str:
    """A fresh tag for one worker (random, so a reused PID never matches another worker's).

    Example:
        >>> len(new_tag()), new_tag() != new_tag()
        (16, True)
    """
    return secrets.token_hex(8)


def _adopt_orphans() -> bool:
    """Make this process adopt its orphaned descendants (Linux); whether it did."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def contained(tag: str, main: Callable[..., Any], *args: Any) -> Any:
    """Run ``main(*args)`` as a worker whose descendants end with it (a ``multiprocessing`` target).

    Args:
        tag: the worker's tag (:func:`new_tag`), given to every program it starts.
        main: the worker's own body.
    """
    _adopt_orphans()
    os.environ[TAG] = tag
    try:
        return main(*args)
    finally:
        _end_processes(descendants(os.getpid()) | tagged(tag, exclude=os.getpid()))
        _reap()


@contextmanager
def ending_what_starts() -> Iterator[None]:
    """Processes started inside the block end when it exits: those below this process that were
    not there before, and those carrying the block's tag (programs started in it, wherever they
    went). For the entrants a tournament or ``arena serve`` builds in its own process to check them.

    Every thread's new processes count, so keep the block to the code that builds entrants.
    """
    tag = new_tag()
    me = os.getpid()
    before = descendants(me)
    previous = os.environ.get(TAG)
    os.environ[TAG] = tag
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(TAG, None)
        else:
            os.environ[TAG] = previous
        started = (descendants(me) - before) | tagged(tag, exclude=me)
        if started:
            _end_processes(started)
            for pid in started:  # collect the exit status of our own children among them
                try:
                    os.waitpid(pid, 0)
                except (ChildProcessError, OSError):
                    pass


def _ppids() -> dict[int, int]:
    """PID -> parent PID of every process this user can see (empty without ``/proc``)."""
    parents: dict[int, int] = {}
    try:
        names = os.listdir(_PROC)
    except OSError:
        return parents
    for name in names:
        if not name.isdigit():
            continue
        try:
            with open(f"{_PROC}/{name}/stat", "rb") as file:
                stat = file.read()
        except OSError:  # it ended meanwhile
            continue
        # "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ")".
        fields = stat[stat.rfind(b")") + 2 :].split()
        if len(fields) > 1:
            parents[int(name)] = int(fields[1])
    return parents


def descendants(pid: int) -> set[int]:
    """Every living descendant of ``pid`` (children, their children, ...), read from ``/proc``."""
    return _below({pid}, _ppids())


def _below(roots: set[int], parents: dict[int, int]) -> set[int]:
    """The descendants of ``roots`` in the PID -> parent PID map ``parents``."""
    children: dict[int, list[int]] = {}
    for child, parent in parents.items():
        children.setdefault(parent, []).append(child)
    found: set[int] = set()
    stack = [child for root in roots for child in children.get(root, ())]
    while stack:
        child = stack.pop()
        if child not in found:
            found.add(child)
            stack.extend(children.get(child, ()))
    return found


def tagged(tag: str, exclude: int | None = None) -> set[int]:
    """The processes whose environment carries ``tag`` (programs a worker started, wherever they are now)."""
    marker = f"{TAG}={tag}".encode()
    found: set[int] = set()
    try:
        names = os.listdir(_PROC)
    except OSError:
        return found
    for name in names:
        if not name.isdigit() or int(name) == exclude:
            continue
        try:
            with open(f"{_PROC}/{name}/environ", "rb") as file:
                environment = file.read()
        except OSError:  # another user's, or it ended meanwhile
            continue
        if marker in environment.split(b"\0"):
            found.add(int(name))
    return found


def _signal(pids: Iterable[int], signum: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, signum)
        except (ProcessLookupError, PermissionError):
            pass


def _end_processes(start: set[int], root: int | None = None) -> None:
    """Stop ``start`` and every descendant they gain until none is new, then kill them all.

    Stopped processes cannot fork, so the set stops growing; ``root`` (stopped by the caller)
    is searched for descendants too.
    """
    stopped: set[int] = set()
    new = set(start)
    while new:
        _signal(new, signal.SIGSTOP)
        stopped |= new
        new = _below(stopped | ({root} if root is not None else set()), _ppids()) - stopped
    _signal(stopped, signal.SIGKILL)
    _signal(stopped, signal.SIGCONT)  # a stopped process dies of SIGKILL at once; this only tidies


def _reap() -> None:
    """Collect the exit status of every child that ended (this process adopted orphans)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_tree(pid: int | None, tag: str | None = None) -> None:
    """End worker ``pid`` (if it still runs), every process under it and every process carrying
    ``tag``; the caller reaps the worker itself (``Process.join``)."""
    if pid is not None:
        try:
            os.kill(pid, signal.SIGSTOP)
        except ProcessLookupError:
            pid = None
    start = tagged(tag) if tag is not None else set()
    if pid is not None:
        start |= descendants(pid)
    start.discard(os.getpid())
    if start or pid is not None:
        _end_processes(start, root=pid)
    if pid is not None:
        _signal([pid], signal.SIGKILL)
        _signal([pid], signal.SIGCONT)
