"""A rule-of-thumb connect four player: win if you can, block if you must, else random."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import SpaceMismatchError

__all__ = ["ConnectFourHeuristicAgent"]

_ROWS, _COLUMNS = 6, 7
_STRIDE = _ROWS + 1  # bitboard: 7 bits per column, the top bit stays empty


# bit 7 * column + height of each cell of the (row 0 at the top) board
_CELL_BITS = np.array([[1 << (c * _STRIDE + _ROWS - 1 - r) for c in range(_COLUMNS)] for r in range(_ROWS)],
                      dtype=np.uint64)


def _has_four_batch(bits: np.ndarray) -> np.ndarray:
    found = np.zeros(bits.shape, dtype=bool)
    for shift in (1, _STRIDE, _STRIDE - 1, _STRIDE + 1):
        pairs = bits & (bits >> np.uint64(shift))
        found |= (pairs & (pairs >> np.uint64(2 * shift))) != 0
    return found


def _has_four(bits: int) -> bool:
    for shift in (1, _STRIDE, _STRIDE - 1, _STRIDE + 1):
        pairs = bits & (bits >> shift)
        if pairs & (pairs >> (2 * shift)):
            return True
    return False


class ConnectFourHeuristicAgent(Agent):
    """Plays a winning move if there is one, else blocks the opponent's winning move, else a random legal move.

    It reads the raw ``connect_four`` observation (a 6x7 board, row 0 at the top, 0
    empty, 1 ``player_0``, 2 ``player_1``) and works out its own colour from the disc
    counts, so it can sit in either seat. A graded opponent: stronger than
    :class:`~arena.agents.base.RandomAgent`, far weaker than search.

    Args:
        seed: seeds the random choice (``reset(seed=...)`` re-seeds it).

    Raises:
        SpaceMismatchError: in :meth:`setup`, for spaces other than connect four's.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> agent = ConnectFourHeuristicAgent(seed=0)
        >>> agent.setup(spaces.Box(0, 2, (6, 7), np.int8), spaces.Discrete(7))
        >>> board = np.zeros((6, 7), dtype=np.int8)
        >>> board[5, :3] = 1  # player_0 has three on the bottom row
        >>> board[4, :2] = 2
        >>> board[4, 6] = 2
        >>> agent.act(board, np.ones(7, dtype=np.int8))  # player_0 to move: win in column 3
        3
    """

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)
        self._np_rng: np.random.Generator | None = None

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        if not (isinstance(observation_space, spaces.Box) and observation_space.shape == (_ROWS, _COLUMNS)) \
                or type(action_space) is not spaces.Discrete or action_space.n != _COLUMNS \
                or int(action_space.start) != 0:
            raise SpaceMismatchError(
                "ConnectFourHeuristicAgent: expected connect four's spaces, a (6, 7) Box observation "
                f"and Discrete(7) actions, got {observation_space} and {action_space}")
        super().setup(observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            self._np_rng = None

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        board = np.asarray(observation)
        mine_mark = 1 if np.count_nonzero(board == 1) == np.count_nonzero(board == 2) else 2
        mine = theirs = 0
        heights = [0] * _COLUMNS
        for column, cells in enumerate(board.T.tolist()):
            for height, cell in enumerate(reversed(cells)):
                if not cell:
                    break
                bit = 1 << (column * _STRIDE + height)
                if cell == mine_mark:
                    mine |= bit
                else:
                    theirs |= bit
                heights[column] = height + 1
        if action_mask is None:
            legal = [c for c in range(_COLUMNS) if heights[c] < _ROWS]
        else:
            legal = np.flatnonzero(action_mask).tolist()
        for bits in (mine, theirs):  # first a move that wins, then one that blocks
            for column in legal:
                if _has_four(bits | (1 << (column * _STRIDE + heights[column]))):
                    return column
        return legal[self._rng.randrange(len(legal))]

    def act_batch(self, observations: Any, action_masks: Any = None) -> np.ndarray:
        """:meth:`act` for many boards at once, on uint64 bitboards (one numpy pass per column).

        The same rule: the first winning column, else the first blocking one, else a
        uniformly random legal column (from a generator seeded by this agent's).
        """
        boards = np.asarray(observations)
        games = len(boards)
        filled = boards != 0
        counts = filled.reshape(games, -1).sum(axis=1)
        mine_mark = np.where(counts % 2 == 0, 1, 2)[:, None, None]
        heights = filled.sum(axis=1)  # (games, columns): discs settle at the bottom
        mine = ((boards == mine_mark) * _CELL_BITS).sum(axis=(1, 2), dtype=np.uint64)
        theirs = ((filled & (boards != mine_mark)) * _CELL_BITS).sum(axis=(1, 2), dtype=np.uint64)
        legal = heights < _ROWS if action_masks is None else np.asarray(action_masks, dtype=bool)
        choice = np.full(games, -1, dtype=np.int64)
        for bits in (mine, theirs):  # first a move that wins, then one that blocks
            for column in range(_COLUMNS):
                drop = np.uint64(1) << (column * _STRIDE + np.minimum(heights[:, column], _ROWS - 1)).astype(np.uint64)
                hits = (choice < 0) & legal[:, column] & _has_four_batch(bits | drop)
                choice[hits] = column
        rest = choice < 0
        if rest.any():
            if self._np_rng is None:
                self._np_rng = np.random.default_rng(self._rng.getrandbits(63))
            masks = legal[rest]
            picks = (self._np_rng.random(len(masks)) * masks.sum(axis=1)).astype(np.int64)
            choice[rest] = (np.cumsum(masks, axis=1) <= picks[:, None]).sum(axis=1)
        return choice
