"""``njit`` from numba when it is installed, else a no-op decorator.

The rules are written as plain Python loops over small numpy arrays, so the same
source runs compiled (numba, the ``pommerman`` extra) or interpreted (slow, but the
same results): numba is an accelerator here, never a requirement.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

import numpy as np

import arena.seeding

_njit: Callable[..., Any] | None
prange: Any  # numba's parallel range inside compiled code, Python's range without numba
try:  # pragma: no cover - which branch runs depends on the installation
    import numba

    _njit, prange = numba.njit, numba.prange
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    _njit, prange = None, range
    HAVE_NUMBA = False
#: numba is installed but told to run everything as plain Python (``NUMBA_DISABLE_JIT=1``).
_DISABLED = HAVE_NUMBA and bool(getattr(numba.config, "DISABLE_JIT", False))


def _knows_unreferenced() -> bool:
    """Whether this numba takes ``_nrt=False`` (an underscore option: a later release may drop it)."""
    try:
        from numba.core.cpu import CPUTargetOptions
    except ImportError:  # pragma: no cover - no numba, or its internals moved
        return False
    return hasattr(CPUTargetOptions, "_nrt")


#: The options of :func:`njit_unreferenced` (the counted compile where numba does not take ``_nrt``).
_UNREFERENCED: dict[str, Any] = {"_nrt": False} if HAVE_NUMBA and _knows_unreferenced() else {}

__all__ = [
    "njit",
    "njit_inline",
    "njit_wrapping",
    "njit_parallel",
    "njit_unreferenced",
    "prange",
    "HAVE_NUMBA",
    "compile_once",
    "numba_cache_folder",
    "forget_stale_cache",
]

#: The file beside numba's cache that names the sources it was compiled from.
SOURCES_STAMP = "arena-sources.sha256"

#: Modules outside this package whose functions the package compiles into its own (the one SplitMix64).
COMPILED_IN = (arena.seeding,)


def njit(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile ``function`` with numba (cached on disk) when numba is available."""
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True)(function)


def njit_wrapping(function: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`njit_inline` for a function whose uint64 arithmetic wraps by design (SplitMix64's).

    Compiled, it wraps silently; in plain Python (no numba, or ``NUMBA_DISABLE_JIT=1``) numpy's
    uint64 scalars give the same numbers but warn at every wrap, which a user's ``-W error`` turns
    into a failure. So there it runs with numpy's overflow warnings off, and only there: an
    overflow anywhere else in the rules still warns (it is a bug).
    """
    if _njit is not None and not _DISABLED:
        return _njit(cache=True, nogil=True, inline="always")(function)

    @functools.wraps(function)
    def wrapping(*args: Any) -> Any:
        with np.errstate(over="ignore"):
            return function(*args)

    return wrapping


def njit_inline(function: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`njit`, inlined into its compiled callers (numba's ``inline="always"``).

    For the small hot helpers of a step: a call between compiled functions passes each array
    as a struct and counts its references atomically, which costs more than a short helper's body.
    """
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True, inline="always")(function)


def njit_unreferenced(function: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`njit` without numba's reference counting (its ``_nrt=False``), for the hot loops.

    Every array a compiled function names (an argument handed to an inlined helper, a row of
    a batch) is counted in and out of numba's runtime with an atomic call each, and LLVM
    removes the pairs only in straight code: in the batch's loops they took about half the time
    of writing the views. A function compiled so may not allocate (numba refuses to compile an
    array it would create); it reads and writes the caller's arrays, which the caller keeps alive.
    """
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True, **_UNREFERENCED)(function)


def njit_parallel(function: Callable[..., Any]) -> Callable[..., Any]:
    """:func:`njit_unreferenced` with numba's ``parallel=True`` (its ``prange`` loops run on threads)."""
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True, parallel=True, **_UNREFERENCED)(function)


_compiled: set[str] = set()


def compile_once(dispatcher: Any, what: str, warm_up: Callable[[], object], *, expect: str) -> bool:
    """Compile ``what`` now if numba's disk cache does not hold it yet: once, saying so, with progress.

    The first Pommerman env or batch of an install compiles its numba code (the rules take about
    half a minute on two cores, the batch one to three minutes); numba caches the result on disk
    (:func:`numba_cache_folder`) and later processes load it in about a second. Left to itself the
    compile happens silently inside the first ``step``, which looks like a hang. So the constructors
    call this with a ``warm_up`` that plays a few steps of a scratch game: where the cache of
    ``dispatcher`` (a compiled entry point of ``what``) is cold, it prints what is compiling, how long
    the first time takes (``expect``) and where it is cached, shows progress (functions compiled and
    seconds, on one line that a terminal redraws, or a line every 15 s in a log) and how long it took.

    Processes that start at once (a tournament's workers) take turns through a lock file in the
    cache folder: one compiles, the others wait and load what it cached, so the work and the message
    happen once. At most once per process and ``what``; without numba, or where the cache cannot be
    found, it does nothing.

    Returns:
        Whether this process compiled.
    """
    if what in _compiled or not HAVE_NUMBA:
        return False
    _compiled.add(what)
    try:
        index = dispatcher._cache._cache_file._index_path
    except AttributeError:  # numba's internals moved: the first step compiles, as numba does
        return False
    if os.path.exists(index):
        return False
    folder = os.path.dirname(index)

    def waiting() -> None:
        print(
            f"arena: another process is compiling {what} with numba; waiting to load it from the cache",
            file=sys.stderr,
            flush=True,
        )

    with _turn(os.path.join(folder, "arena-compiling.lock"), waiting):
        if os.path.exists(index):  # another process compiled it while this one waited
            return False
        with _Progress(what, expect, folder):
            warm_up()
    return True


_held: set[str] = set()  # lock files this process holds: a warm-up that builds another compiled part nests


@contextlib.contextmanager
def _turn(path: str, waiting: Callable[[], object]) -> Iterator[None]:
    """An exclusive lock on ``path`` for the block (none where files cannot be locked); re-entrant.
    ``waiting()`` is called once if another process holds it."""
    if path in _held:
        yield
        return
    try:
        import fcntl

        handle = open(path, "a")  # noqa: SIM115 - held for the block
    except (ImportError, OSError):  # Windows, or a cache folder nobody may write
        yield
        return
    try:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            waiting()
            fcntl.flock(handle, fcntl.LOCK_EX)
        _held.add(path)
        yield
    finally:
        _held.discard(path)
        handle.close()  # releases the lock


class _Progress:
    """The lines of one compile: what, how long the first time takes, then functions and seconds, then the total."""

    def __init__(self, what: str, expect: str, folder: str, stream: TextIO | None = None) -> None:
        self.what, self.expect, self.folder = what, expect, folder
        self.stream = stream if stream is not None else sys.stderr
        self.terminal = bool(getattr(self.stream, "isatty", lambda: False)())
        self.functions = 0
        self.started = 0.0
        self._redrawn = False
        self._stop = threading.Event()

    def _say(self, text: str, redraw: bool = False) -> None:
        if redraw and self.terminal:
            self._redrawn = True
            print(f"\r{text}", end="", file=self.stream, flush=True)
        else:
            print(text, file=self.stream, flush=True)

    def line(self) -> str:
        """The progress line: ``arena: compiling the Pommerman batch: 12 functions, 40 s``."""
        return f"arena: compiling {self.what}: {self.functions} functions, {time.monotonic() - self.started:.0f} s"

    def _beat(self) -> None:
        while not self._stop.wait(1.0 if self.terminal else 15.0):
            self._say(self.line(), redraw=True)

    def __enter__(self) -> _Progress:
        self.started = time.monotonic()
        self._say(
            f"arena: compiling {self.what} with numba, once for this install ({self.expect} the first time; "
            f"cached in {self.folder})"
        )
        self._listener = _counter(self)
        self._events = _listening(self._listener)
        self._events.__enter__()
        self._thread = threading.Thread(target=self._beat, name="arena-numba-progress", daemon=True)
        self._thread.start()
        return self

    def __exit__(self, kind: Any, *rest: Any) -> None:
        self._stop.set()
        self._thread.join()
        self._events.__exit__(kind, *rest)
        if self.terminal and self._redrawn:
            print(file=self.stream)  # end the redrawn line
        if kind is None:
            self._say(
                f"arena: compiled {self.what} in {time.monotonic() - self.started:.0f} s "
                f"({self.functions} function{'' if self.functions == 1 else 's'}); "
                "later runs load it from the cache"
            )


def _counter(progress: _Progress) -> Any:
    """A numba event listener that counts the functions numba compiles (not those it loads from its cache)."""
    from numba.core import event

    class Counter(event.Listener):
        def on_start(self, event: Any) -> None:
            pass

        def on_end(self, event: Any) -> None:
            progress.functions += 1

    return Counter()


def _listening(listener: Any) -> Any:
    from numba.core import event

    return event.install_listener("numba:compile", listener)


def _probe() -> None:
    """A plain function of this package's folder: numba's cache locators place it as they place the rest."""


def numba_cache_folder() -> Path | None:
    """Where numba caches this package's compiled functions, as numba decides it: ``NUMBA_CACHE_DIR``
    when set, else ``__pycache__`` beside the sources when that folder is writable, else the user's
    cache folder (``~/.cache/numba`` on Linux); ``None`` without numba or when numba cannot cache here.
    """
    if not HAVE_NUMBA:
        return None
    try:
        from numba.core.caching import FunctionCache

        return Path(FunctionCache(_probe)._cache_path)
    except Exception:  # numba's internals moved, or no writable place at all
        return None


def forget_stale_cache(
    folder: Path | None = None, compiled_in: Sequence[Path] | None = None, cache: Path | None = None
) -> bool:
    """Remove numba's cached compilations in ``cache`` if any ``folder/*.py`` changed since they were made.

    Numba checks a cached function against its own file only, but a compiled step holds code
    from the other files (:func:`njit_inline` helpers, callees): after an edit to ``core.py``,
    the cached batch step would still run the old rules. So the package's sources are hashed
    together with those of the modules compiled into them, and the cache is dropped when the hash
    differs from the one stored beside it (:data:`SOURCES_STAMP`). Called once when this module is
    imported (about a millisecond). Does nothing without numba; a cache folder that cannot be
    written is left as it is.

    Args:
        folder: the package's folder (default: this one).
        compiled_in: sources outside ``folder`` compiled into its functions (default: the
            files of :data:`COMPILED_IN`).
        cache: numba's cache folder for it (default: :func:`numba_cache_folder` for this package,
            ``folder/__pycache__`` for another folder).

    Returns:
        Whether cached compilations were removed.
    """
    if not HAVE_NUMBA:
        return False
    if compiled_in is None:
        compiled_in = [Path(module.__file__ or "") for module in COMPILED_IN]
    if cache is None:
        cache = (numba_cache_folder() if folder is None else None) or (folder or _HERE) / "__pycache__"
    folder = _HERE if folder is None else folder
    digest = hashlib.sha256()
    for source in [*sorted(folder.glob("*.py")), *compiled_in]:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    wanted = digest.hexdigest()
    try:
        if (cache / SOURCES_STAMP).read_text() == wanted:
            return False
    except OSError:  # no stamp yet
        pass
    removed = False
    try:
        for compiled in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            compiled.unlink(missing_ok=True)  # another process may have removed it first
            removed = True
        cache.mkdir(parents=True, exist_ok=True)
        (cache / SOURCES_STAMP).write_text(wanted)
    except OSError:  # a cache nobody may write: numba will not write it either
        pass
    return removed


_HERE = Path(__file__).resolve().parent
forget_stale_cache()
