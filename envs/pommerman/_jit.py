"""``njit`` from numba when it is installed, else a no-op decorator.

The rules are written as plain Python loops over small numpy arrays, so the same
source runs compiled (numba, the ``pommerman`` extra) or interpreted (slow, but the
same results): numba is an accelerator here, never a requirement.
"""

from __future__ import annotations

import os
import sys
from typing import Any, Callable

_njit: Callable[..., Any] | None
prange: Any  # numba's parallel range inside compiled code, Python's range without numba
try:  # pragma: no cover - which branch runs depends on the installation
    import numba

    _njit, prange = numba.njit, numba.prange
    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    _njit, prange = None, range
    HAVE_NUMBA = False

__all__ = ["njit", "njit_inline", "njit_parallel", "prange", "HAVE_NUMBA", "announce_compiling"]


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


def njit_parallel(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile ``function`` with numba's ``parallel=True`` (its ``prange`` loops run on threads)."""
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True, parallel=True)(function)


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
