"""What the installed distributions declare, read once until an install or ``sys.path`` changes it.

Reading an entry-point group scans every installed distribution's metadata (about 30 ms with
the test extras installed), and arena asks for its groups often: each named env, agent and
interface level resolves through one. :func:`read_while_installed` keeps what was read under a
stamp of ``sys.path`` and each of its folders' modification times. Installing or removing a
distribution adds or removes a folder (its ``.dist-info``) in one of them, so a plugin installed
while a program runs shows at the next lookup. What the stamp cannot see is an edit inside an
installed distribution's own folder (its ``entry_points.txt`` changed in place), which pip never makes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["read_while_installed"]

T = TypeVar("T")

#: What each key read last, under the :func:`_path_stamp` it was read with.
_READ: dict[str, tuple[tuple[tuple[str, int], ...], Any]] = {}


def _path_stamp() -> tuple[tuple[str, int], ...]:
    """``sys.path`` with each folder's modification time in nanoseconds (-1 where it is missing)."""
    stamp = []
    for folder in sys.path:
        try:
            stamp.append((folder, os.stat(folder or os.curdir).st_mtime_ns))
        except OSError:
            stamp.append((folder, -1))
    return tuple(stamp)


def read_while_installed(key: str, read: Callable[[], T]) -> T:
    """``read()``, kept under ``key`` until ``sys.path`` or the modification time of one of its folders changes.

    Example:
        >>> from importlib import metadata
        >>> groups = read_while_installed("doctest: entry points", lambda: len(metadata.entry_points()))
        >>> read_while_installed("doctest: entry points", lambda: -1) == groups  # nothing installed since
        True
    """
    stamp = _path_stamp()
    kept = _READ.get(key)
    if kept is not None and kept[0] == stamp:
        return kept[1]
    value = read()
    _READ[key] = (stamp, value)
    return value
