"""Room: how much open ground a cell has, and how far the nearest enemy is; compiled, counted in one place.

A cell's **room** is the number of cells reachable from it within ``depth`` steps through passable
cells (itself included), capped at ``cap``. Passable are passages, fog and power-ups without a bomb
(:data:`OPEN_CODES`); walls, wood, bombs, flames and bombers block, the agent's own cell too, so that
room is never counted back through it: a dead end entered from here counts as the dead end only.
A cell's **enemy distance** is the Manhattan distance to the nearest enemy, capped at ``reach``.

Two callers share the one count (:func:`_count`, compiled with numba where installed, as the rules):

* :func:`room` counts one cell's room on a passable grid: ``pommerman_evader``
  (:mod:`envs.pommerman.evader`) asks it for each move's cell;
* :func:`room_planes` computes both planes for every cell of :class:`~envs.pommerman.batch.PommermanBatch`
  views (:mod:`envs.pommerman.planes`), one compiled call for a batch: ``pommerman_room_planes``
  (:mod:`interfaces.pommerman_room`) appends them to the batch planes.

Example:
    >>> corridor = np.zeros((11, 11), bool); corridor[5, 3:8] = True
    >>> room(corridor, 5, 5, 1), room(corridor, 5, 5, 2), room(corridor, 5, 3, 9), room(corridor, 5, 3, 9, cap=4)
    (3, 5, 5, 4)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.errors import InvalidValueError
from envs.pommerman._jit import njit, njit_inline
from envs.pommerman.core import SIZE
from envs.pommerman.planes import ENEMY, PLANE_NAMES, SELF

__all__ = ["OPEN_CODES", "PLANES_READ", "room", "room_planes"]

#: Board codes a bomber can walk onto: passage, fog and the three power-ups (without a bomb on them).
OPEN_CODES = (0, 5, 6, 7, 8)
#: The same cells' planes in a view: the board's one-hot planes follow the board codes.
_OPEN_PLANES = tuple(PLANE_NAMES.index(name) for name in ("passage", "fog", "extra_bomb", "incr_range", "kick"))
_P_LIFE = PLANE_NAMES.index("bomb_life")
#: The leading planes of a view that room_planes reads: the one-hot board and bomb life.
PLANES_READ = _P_LIFE + 1


@njit_inline
def _count(passable, row, col, depth, cap, seen, search, queue_r, queue_c, queue_d):
    """The cells within ``depth`` steps of ``(row, col)`` through ``passable`` cells (itself included), at most ``cap``.

    ``seen`` (11, 11) int64 holds the number of the search that last reached a cell, so one array
    serves many searches without clearing: ``search`` must differ from every number in it. The
    queues are (121,) int64 scratch.
    """
    seen[row, col] = search
    queue_r[0], queue_c[0], queue_d[0] = row, col, 0
    head, tail = 0, 1
    while head < tail:
        r, c, d = queue_r[head], queue_c[head], queue_d[head]
        head += 1
        if d >= depth:
            continue
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            nr, nc = r + dr, c + dc
            if 0 <= nr < SIZE and 0 <= nc < SIZE and passable[nr, nc] and seen[nr, nc] != search:
                seen[nr, nc] = search
                queue_r[tail], queue_c[tail], queue_d[tail] = nr, nc, d + 1
                tail += 1
                if tail >= cap:  # the rest cannot change the capped count
                    return cap
    return min(tail, cap)


@njit
def _room_at(passable, row, col, depth, cap):
    """:func:`_count` with its own scratch: one cell's room, for :func:`room`."""
    seen = np.zeros((SIZE, SIZE), dtype=np.int64)
    queue_r = np.zeros(SIZE * SIZE, dtype=np.int64)
    queue_c = np.zeros(SIZE * SIZE, dtype=np.int64)
    queue_d = np.zeros(SIZE * SIZE, dtype=np.int64)
    return _count(passable, row, col, depth, cap, seen, 1, queue_r, queue_c, queue_d)


@njit_inline
def _enemy_distance(enemy, reach, out):
    """Fill ``out`` (11, 11) int64 with each cell's Manhattan distance to the nearest nonzero ``enemy`` cell, at most ``reach``.

    A two-pass distance transform (Rosenfeld and Pfaltz): the first pass, top-left to bottom-right,
    carries distances down and right; the second, back, carries them up and left. For the city-block
    metric the two passes are exact: a shortest path from any enemy can be walked as a run through the
    first pass's directions followed by a run through the second's. 2 x 121 cells in place of 121 x 121.
    """
    for r in range(SIZE):
        for c in range(SIZE):
            d = 0 if enemy[r, c] else reach
            if r > 0:
                d = min(d, out[r - 1, c] + 1)
            if c > 0:
                d = min(d, out[r, c - 1] + 1)
            out[r, c] = d
    for r in range(SIZE - 1, -1, -1):
        for c in range(SIZE - 1, -1, -1):
            d = out[r, c]
            if r < SIZE - 1:
                d = min(d, out[r + 1, c] + 1)
            if c < SIZE - 1:
                d = min(d, out[r, c + 1] + 1)
            out[r, c] = d


@njit
def _planes_kernel(views, depth, cap, reach, out):
    """Fill ``out`` ``(n, 2, 11, 11)`` with every view's room and enemy-distance planes."""
    passable = np.zeros((SIZE, SIZE), dtype=np.bool_)
    distance = np.zeros((SIZE, SIZE), dtype=np.int64)
    seen = np.zeros((SIZE, SIZE), dtype=np.int64)  # the search number that last reached a cell
    queue_r = np.zeros(SIZE * SIZE, dtype=np.int64)
    queue_c = np.zeros(SIZE * SIZE, dtype=np.int64)
    queue_d = np.zeros(SIZE * SIZE, dtype=np.int64)
    search = 0
    for k in range(views.shape[0]):
        for r in range(SIZE):
            for c in range(SIZE):
                open_cell = False
                for p in _OPEN_PLANES:
                    if views[k, p, r, c]:
                        open_cell = True
                passable[r, c] = open_cell and views[k, _P_LIFE, r, c] == 0
        _enemy_distance(views[k, ENEMY], reach, distance)
        for r in range(SIZE):
            for c in range(SIZE):
                out[k, 1, r, c] = distance[r, c]
                out[k, 0, r, c] = 0
                if passable[r, c] or views[k, SELF, r, c]:  # the agent's own cell has room, as a stop's
                    search += 1
                    out[k, 0, r, c] = _count(passable, r, c, depth, cap, seen, search, queue_r, queue_c, queue_d)


def _whole(name: str, value: Any, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise InvalidValueError(f"{name} must be an int in {low}..{high}, got {value!r}")
    return int(value)


def room(passable: Any, row: int, col: int, depth: int, cap: int | None = None) -> int:
    """The cells reachable from ``(row, col)`` within ``depth`` steps through ``passable`` cells (itself included).

    ``(row, col)`` itself need not be passable: the caller blocks the cell it stands on, so that
    room is never counted back through it (module docstring).

    Args:
        passable: ``(11, 11)`` booleans, the cells a step may enter.
        row: the cell's row, 0..10.
        col: the cell's column, 0..10.
        depth: the steps within which cells count (0: the cell alone).
        cap: room above this counts as this (default: no cap).

    Returns:
        The count, at most ``cap``.

    Raises:
        InvalidValueError: ``passable`` is not ``(11, 11)``, or ``row``, ``col``, ``depth`` or ``cap`` is out of range.
    """
    grid = np.ascontiguousarray(passable, dtype=np.bool_)
    if grid.shape != (SIZE, SIZE):
        raise InvalidValueError(f"room: passable must be ({SIZE}, {SIZE}), got shape {grid.shape}")
    row, col = _whole("room: row", row, 0, SIZE - 1), _whole("room: col", col, 0, SIZE - 1)
    depth = _whole("room: depth", depth, 0, 2**31 - 1)
    limit = SIZE * SIZE if cap is None else _whole("room: cap", cap, 1, 2**31 - 1)
    return int(_room_at(grid, row, col, depth, limit))


def room_planes(views: Any, *, depth: int = 3, cap: int = 8, reach: int = 10) -> np.ndarray:
    """The room and enemy-distance planes of PommermanBatch views (module docstring).

    A cell gets room when it is passable or the agent's own (``"self"`` plane); other cells get 0.
    Enemies are the ``"enemy"`` plane's cells.

    Args:
        views: ``(n, planes >= 13, 11, 11)`` uint8 views.
        depth: steps within which room is counted, 0..255.
        cap: room above this counts as this, 0..255.
        reach: distances above this count as this, 0..255.

    Returns:
        ``(n, 2, 11, 11)`` uint8: room, then enemy distance.

    Raises:
        InvalidValueError: ``views`` is not ``(n, planes >= 13, 11, 11)``, or an option is not an int in 0..255.

    Example:
        >>> views = np.zeros((1, 22, 11, 11), np.uint8); views[0, 1] = 1  # rigid walls ...
        >>> views[0, 1, 5], views[0, 0, 5] = 0, 1  # ... but for a corridor along row 5
        >>> views[0, 0, 5, 0], views[0, SELF, 5, 0] = 0, 1  # the agent at its left end
        >>> views[0, 0, 5, 4], views[0, ENEMY, 5, 4] = 0, 1  # an enemy four steps to its right
        >>> planes = room_planes(views)
        >>> planes[0, 0, 5, :6].tolist(), planes[0, 1, 5, :6].tolist()  # no room back through the agent
        ([4, 3, 3, 3, 0, 4], [4, 3, 2, 1, 0, 1])
    """
    options = (("depth", depth), ("cap", cap), ("reach", reach))
    depth, cap, reach = (_whole(f"room_planes: {name}", value, 0, 255) for name, value in options)
    views = np.ascontiguousarray(views, dtype=np.uint8)
    if views.ndim != 4 or views.shape[1] < PLANES_READ or views.shape[2:] != (SIZE, SIZE):
        raise InvalidValueError(
            f"room_planes: expected PommermanBatch views (n, planes, {SIZE}, {SIZE}), got shape {views.shape}"
        )
    out = np.zeros((views.shape[0], 2, SIZE, SIZE), dtype=np.uint8)
    _planes_kernel(views, depth, cap, reach, out)
    return out
