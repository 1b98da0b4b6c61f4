"""Connect four's scripted player (registered as ``connect_four_heuristic``): win if you can,
block if you must, else random."""

from __future__ import annotations

import random
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.agents.base import Agent
from arena.errors import SpaceMismatchError
from envs.connect_four_bits import COLUMNS, ROWS, STRIDE, bitboards, has_four, has_four_batch

__all__ = ["ConnectFourHeuristicAgent"]

_ONE = np.uint64(1)
_COLUMN_BASE = np.arange(COLUMNS) * STRIDE  # the bit of each column's bottom cell


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
        if (
            not (isinstance(observation_space, spaces.Box) and observation_space.shape == (ROWS, COLUMNS))
            or type(action_space) is not spaces.Discrete
            or action_space.n != COLUMNS
            or int(action_space.start) != 0
        ):
            raise SpaceMismatchError(
                "ConnectFourHeuristicAgent: expected connect four's spaces, a (6, 7) Box observation "
                f"and Discrete(7) actions, got {observation_space} and {action_space}"
            )
        super().setup(observation_space, action_space)

    def reset(self, *, seed: int | None = None) -> None:
        if seed is not None:
            self._rng.seed(seed)
            self._np_rng = None

    def act(self, observation: Any, action_mask: Any = None, reward: float = 0.0) -> int:
        board = np.asarray(observation)
        mine_mark = 1 if np.count_nonzero(board == 1) == np.count_nonzero(board == 2) else 2
        mine = theirs = 0
        heights = [0] * COLUMNS
        for column, cells in enumerate(board.T.tolist()):
            for height, cell in enumerate(reversed(cells)):
                if not cell:
                    break
                bit = 1 << (column * STRIDE + height)
                if cell == mine_mark:
                    mine |= bit
                else:
                    theirs |= bit
                heights[column] = height + 1
        if action_mask is None:
            legal = [c for c in range(COLUMNS) if heights[c] < ROWS]
        else:
            legal = np.flatnonzero(action_mask).tolist()
        for bits in (mine, theirs):  # first a move that wins, then one that blocks
            for column in legal:
                if has_four(bits | (1 << (column * STRIDE + heights[column]))):
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
        mine, theirs = bitboards(boards, mine_mark)
        legal = heights < ROWS if action_masks is None else np.asarray(action_masks, dtype=bool)
        # Every column's landing bit, for both players in one pass: (2, games, columns).
        drop = _ONE << (_COLUMN_BASE + np.minimum(heights, ROWS - 1)).astype(np.uint64)
        fours = has_four_batch(np.stack((mine, theirs))[:, :, None] | drop) & legal
        wins, blocks = fours.any(axis=2)
        # The first winning column, else the first blocking one (argmax finds the first True).
        choice = np.where(wins, fours[0].argmax(axis=1), np.where(blocks, fours[1].argmax(axis=1), -1))
        rest = choice < 0
        if rest.any():
            if self._np_rng is None:
                self._np_rng = np.random.default_rng(self._rng.getrandbits(63))
            masks = legal[rest]
            picks = (self._np_rng.random(len(masks)) * masks.sum(axis=1)).astype(np.int64)
            choice[rest] = (np.cumsum(masks, axis=1) <= picks[:, None]).sum(axis=1)
        return choice
