"""Connect four's bitboard: one encoding for the env, its batch and its agents.

Each player's discs are one integer (a uint64 in batches): column ``c``, height ``h`` (from
the bottom) is bit ``7 * c + h``. The seventh bit of each column stays empty, so a shift by
1 (vertical), 7 (horizontal), 6 or 8 (the diagonals) never carries a run from one column
into the next, and four in a row is two shifts and two ands per direction.
"""

from __future__ import annotations

import numpy as np

__all__ = ["ROWS", "COLUMNS", "STRIDE", "CELL_BITS", "has_four", "has_four_batch", "bitboards"]

ROWS, COLUMNS = 6, 7
STRIDE = ROWS + 1  # 7 bits per column, the top one a sentinel
_SHIFTS = (1, STRIDE, STRIDE - 1, STRIDE + 1)  # vertical, horizontal, two diagonals
_SHIFTS_U64 = tuple((np.uint64(s), np.uint64(2 * s)) for s in _SHIFTS)

# The bit of each cell of a board shown with row 0 at the top (the env's observation).
CELL_BITS = np.array([[1 << (c * STRIDE + ROWS - 1 - r) for c in range(COLUMNS)] for r in range(ROWS)], dtype=np.uint64)


def has_four(bits: int) -> bool:
    """Whether a bitboard holds four in a row.

    Example:
        >>> has_four(0b1111)  # four discs stacked in column 0
        True
        >>> has_four(1 | 1 << 7 | 1 << 14)  # three along the bottom row
        False
    """
    for shift in _SHIFTS:
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


def has_four_batch(bits: np.ndarray) -> np.ndarray:
    """:func:`has_four` for an array of uint64 bitboards (any shape), as a bool array.

    Example:
        >>> has_four_batch(np.array([0b1111, 0b111], dtype=np.uint64)).tolist()
        [True, False]
    """
    found = np.zeros(bits.shape, dtype=bool)
    for shift, double in _SHIFTS_U64:
        pairs = bits & (bits >> shift)
        found |= (pairs & (pairs >> double)) != 0
    return found


def bitboards(boards: np.ndarray, mark: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """The uint64 bitboards of the discs marked ``mark`` and of the other discs.

    Args:
        boards: ``(..., 6, 7)`` boards as the env shows them (row 0 at the top, 0 empty).
        mark: the mark (1 or 2) of the first bitboard's discs, a scalar or one per board
            (shaped to broadcast against ``boards``).

    Example:
        >>> board = np.zeros((6, 7), dtype=np.int8); board[5, 0] = 1; board[4, 0] = 2
        >>> [int(b) for b in bitboards(board, 1)]
        [1, 2]
    """
    filled = boards != 0
    own = boards == mark
    return (
        (own * CELL_BITS).sum(axis=(-2, -1), dtype=np.uint64),
        ((filled & ~own) * CELL_BITS).sum(axis=(-2, -1), dtype=np.uint64),
    )
