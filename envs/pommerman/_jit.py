"""``njit`` from numba when it is installed, else a no-op decorator.

The rules are written as plain Python loops over small numpy arrays, so the same
source runs compiled (numba, the ``pommerman`` extra) or interpreted (slow, but the
same results): numba is an accelerator here, never a requirement.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

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
    "njit_parallel",
    "njit_unreferenced",
    "prange",
    "HAVE_NUMBA",
    "announce_compiling",
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


_announced: set[str] = set()


def announce_compiling(dispatcher: Any, what: str) -> bool:
    """Say once per process, on stderr, that numba is about to compile ``what`` (its disk cache is cold).

    Numba caches the compiled code beside the sources (or in the user's cache folder), so
    this happens once per install or change; the first call otherwise looks like a hang.
    Returns whether it spoke. Silent without numba or when numba's cache cannot be read.
    """
    if what in _announced:
        return False
    _announced.add(what)
    try:
        index = dispatcher._cache._cache_file._index_path
    except AttributeError:  # no numba, or its internals moved: say nothing rather than guess
        return False
    if os.path.exists(index):
        return False
    print(f"arena: compiling {what} with numba (once; cached in {os.path.dirname(index)})", file=sys.stderr, flush=True)
    return True


def forget_stale_cache(folder: Path | None = None, compiled_in: Sequence[Path] | None = None) -> bool:
    """Remove numba's cached compilations in ``folder/__pycache__`` if any ``folder/*.py`` changed since.

    Numba checks a cached function against its own file only, but a compiled step holds code
    from the other files (:func:`njit_inline` helpers, callees): after an edit to ``core.py``,
    the cached batch step would still run the old rules. So the package's sources are hashed
    together with those of the modules compiled into them, and the cache is dropped when the hash
    differs from the one stored beside it (:data:`SOURCES_STAMP`). Called once when this
    module is imported (about a millisecond). Does nothing without numba or with
    ``NUMBA_CACHE_DIR`` set (numba then caches elsewhere); a read-only install is left as it
    is (numba then caches in the user's folder).

    Args:
        folder: the package's folder (default: this one).
        compiled_in: sources outside ``folder`` compiled into its functions (default: the
            files of :data:`COMPILED_IN`).

    Returns:
        Whether cached compilations were removed.
    """
    if not HAVE_NUMBA or os.environ.get("NUMBA_CACHE_DIR"):
        return False
    if compiled_in is None:
        compiled_in = [Path(module.__file__ or "") for module in COMPILED_IN]
    folder = Path(__file__).resolve().parent if folder is None else folder
    digest = hashlib.sha256()
    for source in [*sorted(folder.glob("*.py")), *compiled_in]:
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    cache, wanted = folder / "__pycache__", digest.hexdigest()
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
        cache.mkdir(exist_ok=True)
        (cache / SOURCES_STAMP).write_text(wanted)
    except OSError:  # a read-only install
        pass
    return removed


forget_stale_cache()
