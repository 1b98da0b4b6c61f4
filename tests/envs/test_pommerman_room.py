"""envs.pommerman.room: the one room count (the evader's and the room planes'), against plain Python searches.

The references here share nothing with the compiled code: a breadth-first search over a dict for room,
and a look at every enemy for the distance. ``tests/interfaces/test_pommerman_room.py`` reads them too.
"""

from __future__ import annotations

from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import envs.pommerman.evader
from arena.errors import InvalidValueError
from envs.pommerman.room import room, room_planes

OPEN_PLANES = (0, 5, 6, 7, 8)  # passage, fog, extra bomb, range, kick
SELF, ENEMY, LIFE = 9, 11, 12


def reference_room(passable: np.ndarray, row: int, col: int, depth: int) -> int:
    """The cells at a walking distance of at most ``depth`` from ``(row, col)`` through ``passable`` cells."""
    distance = {(row, col): 0}
    front = deque([(row, col)])
    while front:
        r, c = front.popleft()
        for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)):
            if 0 <= nr < 11 and 0 <= nc < 11 and passable[nr, nc] and (nr, nc) not in distance:
                distance[(nr, nc)] = distance[(r, c)] + 1
                front.append((nr, nc))
    return sum(1 for d in distance.values() if d <= depth)


def reference_distance(enemies: np.ndarray, row: int, col: int, reach: int) -> int:
    """The Manhattan distance from ``(row, col)`` to the nearest of ``enemies`` (k, 2), at most ``reach``."""
    return min([reach] + [abs(int(r) - row) + abs(int(c) - col) for r, c in enemies])


def reference_planes(view: np.ndarray, depth: int, cap: int, reach: int) -> np.ndarray:
    """One view's room and enemy-distance planes, cell by cell from the two references."""
    passable = np.any(view[list(OPEN_PLANES)] != 0, axis=0) & (view[LIFE] == 0)
    enemies = np.argwhere(view[ENEMY] != 0)
    out = np.zeros((2, 11, 11), np.int64)
    for r in range(11):
        for c in range(11):
            if passable[r, c] or view[SELF, r, c]:
                out[0, r, c] = min(reference_room(passable, r, c, depth), cap)
            out[1, r, c] = reference_distance(enemies, r, c, reach)
    return out


@settings(max_examples=80, deadline=None)
@given(
    cells=st.lists(st.booleans(), min_size=121, max_size=121),
    row=st.integers(0, 10),
    col=st.integers(0, 10),
    depth=st.integers(0, 8),
    cap=st.one_of(st.none(), st.integers(1, 30)),
)
def test_room_counts_the_cells_within_depth_steps(cells, row, col, depth, cap):
    """The cell itself counts whether passable or not (the evader blocks its own); ``cap`` caps."""
    passable = np.array(cells).reshape(11, 11)
    expected = reference_room(passable, row, col, depth)
    assert room(passable, row, col, depth, cap) == (expected if cap is None else min(expected, cap))


def _views(seed: int, n: int) -> np.ndarray:
    """``n`` views of random boards: one board code per cell, bombs here and there, any number of enemies,
    and planes that real views never hold (two codes on a cell, several ``self`` cells) now and then."""
    rng = np.random.default_rng(seed)
    views = np.zeros((n, 22, 11, 11), np.uint8)
    for view in views:
        codes = rng.choice(12, size=(11, 11), p=rng.dirichlet(np.ones(12)))
        np.put_along_axis(view[:12], codes[None], 1, axis=0)
        view[LIFE] = (rng.random((11, 11)) < rng.random() * 0.3) * rng.integers(1, 10, (11, 11))
        if rng.random() < 0.3:
            view[rng.integers(22)] |= (rng.random((11, 11)) < 0.1).astype(np.uint8)
    return views


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 3),
    depth=st.integers(0, 7),
    cap=st.integers(0, 40),
    reach=st.integers(0, 25),
)
def test_room_planes_are_the_references_cell_by_cell(seed, n, depth, cap, reach):
    views = _views(seed, n)
    planes = room_planes(views, depth=depth, cap=cap, reach=reach)
    assert planes.shape == (n, 2, 11, 11) and planes.dtype == np.uint8
    for view, got in zip(views, planes):
        np.testing.assert_array_equal(got, reference_planes(view, depth, cap, reach))


def test_the_distance_is_capped_and_reach_without_enemies():
    views = np.zeros((2, 13, 11, 11), np.uint8)
    views[0, ENEMY, 0, 0] = views[0, ENEMY, 10, 10] = 1
    planes = room_planes(views, reach=255)
    assert planes[0, 1, 5, 5] == 10 and planes[0, 1, 0, 10] == 10 and planes[0, 1, 10, 9] == 1
    assert (planes[1, 1] == 255).all()  # no enemy at all


def test_the_evader_counts_with_the_shared_room():
    assert envs.pommerman.evader.room is room


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.zeros((9, 11), bool), 0, 0, 3), r"room: passable must be \(11, 11\), got shape \(9, 11\)"),
        ((np.zeros((11, 11), bool), 11, 0, 3), r"room: row must be an int in 0..10, got 11"),
        ((np.zeros((11, 11), bool), 0, -1, 3), r"room: col must be an int in 0..10, got -1"),
        ((np.zeros((11, 11), bool), 0, 0, -1), r"room: depth must be an int in 0..2147483647, got -1"),
        ((np.zeros((11, 11), bool), 0, 0, 3, 0), r"room: cap must be an int in 1..2147483647, got 0"),
        ((np.zeros((11, 11), bool), 0.5, 0, 3), r"room: row must be an int in 0..10, got 0.5"),
    ],
)
def test_room_refuses_what_is_off_the_board(args, match):
    with pytest.raises(InvalidValueError, match=match):
        room(*args)


@pytest.mark.parametrize("name", ["depth", "cap", "reach"])
@pytest.mark.parametrize("value", [-1, 256, 2.5, True])
def test_room_planes_refuse_options_a_plane_cannot_hold(name, value):
    with pytest.raises(InvalidValueError, match=rf"room_planes: {name} must be an int in 0..255, got"):
        room_planes(np.zeros((1, 22, 11, 11), np.uint8), **{name: value})
