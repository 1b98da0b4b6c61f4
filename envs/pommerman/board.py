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

from arena.errors import InvalidValueError
from arena.seeding import mix64, next_uniform
from envs.pommerman._jit import njit, njit_inline, njit_unreferenced, njit_wrapping
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


def unreachable_passages(board: np.ndarray, start_r: int, start_c: int) -> int:
    """How many passage cells of an (11, 11) ``board`` cannot be reached from ``(start_r, start_c)`` through non-rigid cells.

    The start counts as reached whatever its cell holds. A board draw redraws while this is above 4
    from agent 2's corner (:func:`unreachable_passages_into` is the compiled form it runs).

    Raises:
        ValueError: ``board`` not an (11, 11) grid, or the start outside it.

    Example:
        >>> board = np.full((SIZE, SIZE), RIGID, np.uint8)
        >>> board[0, :3] = PASSAGE
        >>> board[5, 5] = PASSAGE
        >>> unreachable_passages(board, 0, 0)
        1
    """
    cells = np.ascontiguousarray(board, dtype=np.uint8)
    if cells.shape != (SIZE, SIZE) or not (0 <= start_r < SIZE and 0 <= start_c < SIZE):
        raise InvalidValueError(
            f"unreachable_passages: expected an ({SIZE}, {SIZE}) board and a start inside it, "
            f"got shape {cells.shape} and start ({start_r}, {start_c})"
        )
    return int(_unreachable_passages(cells.reshape(-1), int(start_r) * SIZE + int(start_c)))


@njit
def _unreachable_passages(cells, start):
    return unreachable_passages_into(cells, start, np.zeros(_PADDED_WORDS, np.uint64))


# The board as bits: cell i (row-major, 121 cells) is bit i of a 128-bit number held as two
# uint64 words (low: cells 0-63, high: 64-127). Constants are numpy uint64 so that numba keeps
# every operation in uint64 (a Python int below 2**63 is int64 to numba, and int64 mixed with
# uint64 is float64), and nothing here overflows: numpy's interpreted uint64 would warn.
_PADDED_WORDS = 16  # 128 bytes: the 121 cells and 7 zeros
_LOW_7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH_BITS = np.uint64(0x8080808080808080)
_RIGID_BYTES = np.uint64(0x0101010101010101 * RIGID)
_PASSAGE_BYTES = np.uint64(0x0101010101010101 * PASSAGE)
_BYTE = np.uint64(0xFF)
_ZERO = np.uint64(0)
_HIGH_CELLS = np.uint64((1 << (SIZE * SIZE - 64)) - 1)  # cells 64-120 in the high word
_SHIFT = tuple(np.uint64(k) for k in range(64))
_COLUMN_0 = sum(1 << i for i in range(0, SIZE * SIZE, SIZE))
_COLUMN_LAST = sum(1 << i for i in range(SIZE - 1, SIZE * SIZE, SIZE))
_NOT_COLUMN_0 = (np.uint64(~_COLUMN_0 & (2**64 - 1)), np.uint64(~(_COLUMN_0 >> 64) & (2**64 - 1)))
_NOT_COLUMN_LAST = (np.uint64(~_COLUMN_LAST & (2**64 - 1)), np.uint64(~(_COLUMN_LAST >> 64) & (2**64 - 1)))


@njit_inline
def _byte_flags(word):
    """Bit 7 of each byte of ``word`` set where that byte is not zero (no carry crosses a byte)."""
    return (((word & _LOW_7) + _LOW_7) | word) & _HIGH_BITS


@njit_inline
def _gather_flags(flags):
    """The bit 7 of each of the 8 bytes of ``flags`` as 8 bits (byte k: bit k), by shifts alone."""
    x = flags >> _SHIFT[7]
    x |= x >> _SHIFT[7]
    x |= x >> _SHIFT[14]
    x |= x >> _SHIFT[28]
    return x & _BYTE


@njit_inline
def unreachable_passages_into(cells, start, padded):
    """:func:`unreachable_passages` on a flat row of 121 cells from cell ``start``, in ``padded``: 16 uint64.

    The cells are read 8 at a time as words (copied into ``padded`` first), turned into 128-bit
    masks of the open (not rigid) and passage cells by byte tricks, and filled from the start
    a step in all four directions at a time (shifts by 1 and by a row) until nothing is added:
    no branch per cell. A board is drawn every ~24 steps of a batch's games (about 1.2 tries a
    board), so this pays: it took half of a board draw cell by cell.
    """
    as_bytes = padded.view(np.uint8)
    for i in range(SIZE * SIZE):
        as_bytes[i] = cells[i]
    for i in range(SIZE * SIZE, 8 * _PADDED_WORDS):
        as_bytes[i] = 0
    open_low, open_high = _cell_bits(padded, 0, _RIGID_BYTES, False), _cell_bits(padded, 8, _RIGID_BYTES, False)
    passages_low, passages_high = (
        _cell_bits(padded, 0, _PASSAGE_BYTES, True),
        _cell_bits(padded, 8, _PASSAGE_BYTES, True),
    )
    start_low = np.uint64(1) << np.uint64(start) if start < 64 else _ZERO
    start_high = np.uint64(1) << np.uint64(start - 64) if start >= 64 else _ZERO
    open_low |= start_low  # the start is reached even when rigid, as a search from it would
    open_high = (open_high | start_high) & _HIGH_CELLS
    low, high = start_low, start_high
    while True:  # a step in the four directions; a shift by 1 must not wrap from one row's end to the next
        right_low = low << _SHIFT[1]
        right_high = high << _SHIFT[1] | low >> _SHIFT[63]
        left_low = low >> _SHIFT[1] | high << _SHIFT[63]
        left_high = high >> _SHIFT[1]
        down_low = low << _SHIFT[SIZE]
        down_high = high << _SHIFT[SIZE] | low >> _SHIFT[64 - SIZE]
        up_low = low >> _SHIFT[SIZE] | high << _SHIFT[64 - SIZE]
        up_high = high >> _SHIFT[SIZE]
        grown_low = (low | right_low & _NOT_COLUMN_0[0] | left_low & _NOT_COLUMN_LAST[0] | down_low | up_low) & open_low
        grown_high = (
            high | right_high & _NOT_COLUMN_0[1] | left_high & _NOT_COLUMN_LAST[1] | down_high | up_high
        ) & open_high
        if grown_low == low and grown_high == high:
            break
        low, high = grown_low, grown_high
    return _bit_count(passages_low & ~low) + _bit_count(passages_high & ~high & _HIGH_CELLS)


@njit_inline
def _cell_bits(words, first, pattern, equal):
    """Bits of the 64 cells in ``words[first:first + 8]`` whose byte is (``equal``) or is not ``pattern``'s."""
    bits = _ZERO
    for k in range(8):
        flags = _gather_flags(_byte_flags(words[first + k] ^ pattern))
        bits |= (flags ^ _BYTE if equal else flags) << np.uint64(8 * k)
    return bits


@njit_inline
def _bit_count(bits):
    """How many bits of ``bits`` are set (a loop per set bit: the counts here are small)."""
    count = 0
    while bits:
        bits &= bits - np.uint64(1)
        count += 1
    return count


#: The next float in [0, 1) of the SplitMix64 stream ``rng`` (a uint64 array of one: its state), compiled.
uniform = njit_wrapping(next_uniform)
_mix64 = njit_wrapping(mix64)


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
BOARD_SCRATCH = len(_PAIRS) + SIZE * SIZE + _PADDED_WORDS


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
    padded = scratch[pairs + SIZE * SIZE :].view(np.uint64)  # the redraw check's words
    start = start_r * SIZE + start_c
    while True:
        for i in range(SIZE * SIZE):  # a loop: a slice copy of a global array needs numba's reference counting
            board[i] = _BASE_CELLS[i]
        _shuffle_prefix(rng, order, NUM_RIGID_PAIRS + NUM_WOOD_PAIRS)
        for i in range(NUM_RIGID_PAIRS + NUM_WOOD_PAIRS):
            r, c = _PAIRS[order[i], 0], _PAIRS[order[i], 1]
            code = RIGID if i < NUM_RIGID_PAIRS else WOOD
            board[r * SIZE + c] = code
            board[c * SIZE + r] = code
        if unreachable_passages_into(board, start, padded) <= MAX_UNREACHABLE:
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
