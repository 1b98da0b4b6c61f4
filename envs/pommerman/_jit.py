"""``njit`` from numba when it is installed, else a no-op decorator.

The rules are written as plain Python loops over small numpy arrays, so the same
source runs compiled (numba, the ``pommerman`` extra) or interpreted (slow, but the
same results): numba is an accelerator here, never a requirement.
"""

from __future__ import annotations

from typing import Any, Callable

try:  # pragma: no cover - which branch runs depends on the installation
    from numba import njit as _njit
    from numba import prange

    HAVE_NUMBA = True
except ImportError:  # pragma: no cover
    _njit = None
    prange = range
    HAVE_NUMBA = False

__all__ = ["njit", "njit_parallel", "prange", "HAVE_NUMBA"]


def njit(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile ``function`` with numba (cached on disk) when numba is available."""
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True)(function)


def njit_parallel(function: Callable[..., Any]) -> Callable[..., Any]:
    """Compile ``function`` with numba's ``parallel=True`` (its ``prange`` loops run on threads)."""
    if _njit is None:
        return function
    return _njit(cache=True, nogil=True, parallel=True)(function)
