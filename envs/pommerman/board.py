"""Reset boards with the reference's distribution.

The reference lays 12 fixed wooden walls, then draws 18 mirrored pairs of rigid walls and
12 mirrored pairs of wooden walls uniformly from the free off-diagonal cells (the agents'
corners and the two cells after each agent along its row and column stay free), redraws the
whole board while more than 4 passages cannot be reached from agent 2's corner, and hides 20
power-ups (each of the three kinds with equal chance) under distinct wooden cells. Drawing
pairs one at a time without replacement is a uniform random prefix of the free pairs, which
is what :func:`make_board` takes.
"""

from __future__ import annotations

import numpy as np

from envs.pommerman._jit import njit
from envs.pommerman.core import AGENT_0, EXTRA_BOMB, PASSAGE, RIGID, SIZE, WOOD

__all__ = ["START_POSITIONS", "FIXED_WOOD", "make_board", "make_items", "unreachable_passages"]

#: Agents 0-3 start in the corners: top left, bottom left, bottom right, top right.
START_POSITIONS = ((1, 1), (SIZE - 2, 1), (SIZE - 2, SIZE - 2), (1, SIZE - 2))
NUM_RIGID_PAIRS = 18
NUM_WOOD_PAIRS = 12  # beside the 12 fixed wooden cells: 36 wooden walls in all
NUM_ITEMS = 20
MAX_UNREACHABLE = 4


def _fixed_wood() -> tuple[tuple[int, int], ...]:
    cells = []
    for i in range(4, SIZE - 4):
        cells += [(1, i), (SIZE - i - 1, 1), (SIZE - 2, SIZE - i - 1), (SIZE - i - 1, SIZE - 2)]
    return tuple(cells)


#: The wooden walls on every board: they guarantee a way to the other agents.
FIXED_WOOD = _fixed_wood()


def _free_pairs() -> np.ndarray:
    """The (row, col) with row < col of the mirrored pairs the random walls are drawn from."""
    blocked = set(START_POSITIONS) | set(FIXED_WOOD)
    for i in (2, 3):
        blocked |= {(1, i), (i, 1), (SIZE - 2, SIZE - i - 1), (SIZE - i - 1, SIZE - 2),
                    (1, SIZE - i - 1), (SIZE - i - 1, 1), (i, SIZE - 2), (SIZE - 2, i)}
    pairs = [(r, c) for r in range(SIZE) for c in range(r + 1, SIZE)
             if (r, c) not in blocked and (c, r) not in blocked]
    return np.array(pairs, dtype=np.int64)


_PAIRS = _free_pairs()
_BASE = np.zeros((SIZE, SIZE), dtype=np.uint8)
for _i, (_r, _c) in enumerate(START_POSITIONS):
    _BASE[_r, _c] = AGENT_0 + _i
for _r, _c in FIXED_WOOD:
    _BASE[_r, _c] = WOOD


@njit
def unreachable_passages(board, start_r, start_c):
    """How many passage cells cannot be reached from ``(start_r, start_c)`` through non-rigid cells."""
    n = board.shape[0]
    seen = np.zeros((n, n), dtype=np.bool_)
    stack = np.empty(n * n, dtype=np.int64)
    stack[0] = start_r * n + start_c
    seen[start_r, start_c] = True
    top = 1
    while top > 0:
        top -= 1
        r = stack[top] // n
        c = stack[top] % n
        for k in range(4):
            rr = r + (1 if k == 0 else -1 if k == 1 else 0)
            cc = c + (1 if k == 2 else -1 if k == 3 else 0)
            if 0 <= rr < n and 0 <= cc < n and not seen[rr, cc] and board[rr, cc] != RIGID:
                seen[rr, cc] = True
                stack[top] = rr * n + cc
                top += 1
    missing = 0
    for r in range(n):
        for c in range(n):
            if board[r, c] == PASSAGE and not seen[r, c]:
                missing += 1
    return missing


def make_board(rng: np.random.Generator) -> np.ndarray:
    """A fresh (11, 11) uint8 board with the agents in their corners, drawn with ``rng``."""
    start_r, start_c = START_POSITIONS[2]
    while True:
        board = _BASE.copy()
        order = rng.permutation(len(_PAIRS))
        rigid = _PAIRS[order[:NUM_RIGID_PAIRS]]
        wood = _PAIRS[order[NUM_RIGID_PAIRS:NUM_RIGID_PAIRS + NUM_WOOD_PAIRS]]
        board[rigid[:, 0], rigid[:, 1]] = RIGID
        board[rigid[:, 1], rigid[:, 0]] = RIGID
        board[wood[:, 0], wood[:, 1]] = WOOD
        board[wood[:, 1], wood[:, 0]] = WOOD
        if unreachable_passages(board, start_r, start_c) <= MAX_UNREACHABLE:
            return board


def make_items(board: np.ndarray, rng: np.random.Generator, num_items: int = NUM_ITEMS) -> np.ndarray:
    """The (11, 11) uint8 grid of hidden power-ups: ``num_items`` distinct wooden cells."""
    items = np.zeros_like(board)
    wood = np.flatnonzero(board.reshape(-1) == WOOD)
    chosen = wood[rng.permutation(len(wood))[:num_items]]
    items.reshape(-1)[chosen] = rng.integers(EXTRA_BOMB, EXTRA_BOMB + 3, size=len(chosen))
    return items
