"""Reset boards with the reference's distribution.

The reference lays 12 fixed wooden walls, then draws 18 mirrored pairs of rigid walls and
12 mirrored pairs of wooden walls uniformly from the free off-diagonal cells (the agents'
corners and the two cells after each agent along its row and column stay free), redraws the
whole board while more than 4 passages cannot be reached from agent 2's corner, and hides 20
power-ups (each of the three kinds with equal chance) under distinct wooden cells. Drawing
pairs one at a time without replacement is a uniform random prefix of the free pairs, which
is what :func:`draw_board` takes, compiled, from a SplitMix64 stream of its own per game
(:func:`arena.seeding.next_uniform`; ``reset(seed=s)`` starts it from ``s``; later resets
continue it).
"""

from __future__ import annotations

import numpy as np

from arena.seeding import mix64, next_uniform
from envs.pommerman._jit import njit, njit_inline, njit_unreferenced
from envs.pommerman.core import AGENT_0, EXTRA_BOMB, PASSAGE, RIGID, SIZE, WOOD, fill

__all__ = [
    "START_POSITIONS",
    "FIXED_WOOD",
    "draw_board",
    "make_board",
    "seed_stream",
    "uniform",
    "unreachable_passages",
]

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
        blocked |= {
            (1, i),
            (i, 1),
            (SIZE - 2, SIZE - i - 1),
            (SIZE - i - 1, SIZE - 2),
            (1, SIZE - i - 1),
            (SIZE - i - 1, 1),
            (i, SIZE - 2),
            (SIZE - 2, i),
        }
    pairs = [(r, c) for r in range(SIZE) for c in range(r + 1, SIZE) if (r, c) not in blocked and (c, r) not in blocked]
    return np.array(pairs, dtype=np.int64)


_PAIRS = _free_pairs()
_BASE = np.zeros((SIZE, SIZE), dtype=np.uint8)
for _i, (_r, _c) in enumerate(START_POSITIONS):
    _BASE[_r, _c] = AGENT_0 + _i
for _r, _c in FIXED_WOOD:
    _BASE[_r, _c] = WOOD
_BASE_CELLS = _BASE.reshape(-1)


@njit
def unreachable_passages(board, start_r, start_c):
    """How many passage cells cannot be reached from ``(start_r, start_c)`` through non-rigid cells.

    See :func:`unreachable_passages_into`, which this calls with scratch rows of its own.
    """
    return unreachable_passages_into(board, start_r, start_c, np.zeros((3, board.shape[0]), np.int64))


@njit_inline
def unreachable_passages_into(board, start_r, start_c, rows):
    """:func:`unreachable_passages` working in ``rows``, an int64 (3, rows of the board) scratch.

    A flood fill on bit rows (bit c of row r: cell (r, c); boards up to 63 columns): sweeps down
    and up the rows, each row filled sideways within its open cells, until nothing is added. A
    board is drawn every ~24 steps of a batch's games, so this pays (a third of the cell-by-cell
    search's time, which branched on every cell).
    """
    n = board.shape[0]
    for r in range(n):  # open (not rigid) cells, passages, reached cells
        open_cells = 0  # gathered in registers: |= into rows[...] waited on a store per cell
        passages = 0
        for c in range(board.shape[1]):
            code = board[r, c]
            open_cells |= int(code != RIGID) << c
            passages |= int(code == PASSAGE) << c
        rows[0, r] = open_cells
        rows[1, r] = passages
        rows[2, r] = 0
    start = 1 << start_c  # reached even when rigid, as a search from it would
    rows[2, start_r] = start
    changed = True
    while changed:
        changed = False
        for sweep in range(2 * n):
            r = sweep if sweep < n else 2 * n - 1 - sweep  # down, then up
            x = rows[2, r]
            if r > 0:
                x |= rows[2, r - 1] & rows[0, r]
            if r < n - 1:
                x |= rows[2, r + 1] & rows[0, r]
            while True:  # sideways within the row's open cells
                grown = (x | (x << 1) | (x >> 1)) & rows[0, r]
                if r == start_r:
                    grown |= start
                if grown == x:
                    break
                x = grown
            if x != rows[2, r]:
                rows[2, r] = x
                changed = True
    missing = 0
    for r in range(n):
        lost = rows[1, r] & ~rows[2, r]
        while lost:
            lost &= lost - 1
            missing += 1
    return missing


#: The next float in [0, 1) of the SplitMix64 stream ``rng`` (a uint64 array of one: its state), compiled.
uniform = njit_inline(next_uniform)
_mix64 = njit_inline(mix64)


@njit
def seed_stream(rng, seed):
    """Start the stream ``rng`` from ``seed`` as :class:`arena.seeding.SplitMix64` does."""
    rng[0] = _mix64(np.uint64(seed))


@njit_inline
def _shuffle_prefix(rng, values, k):
    """Put a uniform random ordered ``k``-prefix of ``values`` first (partial Fisher-Yates)."""
    n = len(values)
    for i in range(k):
        j = i + int(uniform(rng) * (n - i))
        values[i], values[j] = values[j], values[i]


#: Length of the int64 scratch :func:`draw_board_into` works in.
BOARD_SCRATCH = len(_PAIRS) + SIZE * SIZE + 3 * SIZE


@njit
def draw_board(rng, board, items):
    """Draw a fresh board and its hidden power-ups into ``board`` and ``items`` from the stream ``rng``.

    ``board`` and ``items`` are C-contiguous (11, 11) grids or flat rows of 121 cells.
    """
    draw_board_into(rng, board.reshape(-1), items.reshape(-1), np.empty(BOARD_SCRATCH, np.int64))


@njit_unreferenced
def draw_board_into(rng, board, items, scratch):
    """:func:`draw_board` on flat rows of 121 cells, working in ``scratch``, int64 of :data:`BOARD_SCRATCH`.

    Allocates nothing. The rows are flat: a (11, 11) grid is indexed through its row length,
    read at run time, and its ``[:] = 0`` is a call to ``memset`` a row.
    """
    start_r, start_c = START_POSITIONS[2]
    pairs = len(_PAIRS)
    order = scratch[:pairs]
    for i in range(pairs):
        order[i] = i
    wood = scratch[pairs : pairs + SIZE * SIZE]
    rows = scratch[pairs + SIZE * SIZE :].reshape((3, SIZE))
    grid = board.reshape((SIZE, SIZE))  # the redraw check's view
    while True:
        for i in range(SIZE * SIZE):  # a loop: a slice copy of a global array needs numba's reference counting
            board[i] = _BASE_CELLS[i]
        _shuffle_prefix(rng, order, NUM_RIGID_PAIRS + NUM_WOOD_PAIRS)
        for i in range(NUM_RIGID_PAIRS + NUM_WOOD_PAIRS):
            r, c = _PAIRS[order[i], 0], _PAIRS[order[i], 1]
            code = RIGID if i < NUM_RIGID_PAIRS else WOOD
            board[r * SIZE + c] = code
            board[c * SIZE + r] = code
        if unreachable_passages_into(grid, start_r, start_c, rows) <= MAX_UNREACHABLE:
            break
    n_wood = 0
    for cell in range(SIZE * SIZE):  # without a branch per cell: each board's walls are new
        wood[n_wood] = cell
        n_wood += board[cell] == WOOD
    fill(items, SIZE * SIZE, 0)
    chosen = min(NUM_ITEMS, n_wood)
    _shuffle_prefix(rng, wood[:n_wood], chosen)
    for i in range(chosen):
        items[wood[i]] = EXTRA_BOMB + int(uniform(rng) * 3)


def make_board(rng: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A fresh ``(board, items)`` pair of (11, 11) uint8 grids drawn from the stream ``rng``.

    Example:
        >>> rng = np.zeros(1, np.uint64)
        >>> seed_stream(rng, 0)
        >>> board, items = make_board(rng)
        >>> int((board == RIGID).sum()), int((items > 0).sum())
        (36, 20)
    """
    board = np.empty((SIZE, SIZE), np.uint8)
    items = np.empty((SIZE, SIZE), np.uint8)
    draw_board(rng, board, items)
    return board, items
