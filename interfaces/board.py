"""Board-game interfaces: a player-relative board view and board symmetries.

The bundled board games (``tic_tac_toe``, ``connect_four``) observe the absolute board:
0 empty, 1 a mark of ``player_0``, 2 a mark of ``player_1``, shown to the player to move.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError, SpaceMismatchError
from arena.interface import Interface
from interfaces._spaces import box_space

__all__ = ["EgoBoard", "RotateBoard"]


class EgoBoard(Interface):
    """Show an absolute board (0 empty, 1 and 2 the players' marks) from the observer's side.

    Own marks become +1 and the opponent's -1 (or, with ``planes``, two 0/1 planes: own
    marks first, then the opponent's), so one policy can play either seat. The observer
    is ``player`` when given; otherwise the player to move in an alternating two-player
    game, whose mark follows from parity: an even number of marks on the board means
    ``player_0`` (mark 1) moves, an odd number ``player_1`` (mark 2).

    Args:
        inner: the interface underneath.
        player: the observer's seat (0 or 1), or ``None`` to infer it from parity.
        planes: two planes (``(2, *board_shape)``) instead of one signed board.
        dtype: dtype of the view.

    Raises:
        ValueError: ``player`` is not 0, 1 or None.
        SpaceMismatchError: at setup, for observations that are not an integer Box with
            values in 0..2.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = EgoBoard()
        >>> itf.setup(spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9))
        >>> board = np.array([[1, 0, 0], [0, 2, 0], [0, 0, 1]], dtype=np.int8)  # O (player_1) to move
        >>> itf.transform_observation(board).astype(int).tolist()
        [[-1, 0, 0], [0, 1, 0], [0, 0, -1]]
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(), spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9)),
            (cls(planes=True), spaces.Box(0, 2, (6, 7), np.int8), spaces.Discrete(7)),
        ]

    def __init__(
        self,
        inner: Interface | None = None,
        *,
        player: int | None = None,
        planes: bool = False,
        dtype: Any = np.float32,
    ) -> None:
        super().__init__(inner)
        if player not in (None, 0, 1) or isinstance(player, bool):
            raise InvalidValueError(
                f"{type(self).__name__}: player must be 0, 1 or None (infer from parity), got {player!r}"
            )
        self.player = player
        self.planes = bool(planes)
        self.dtype = np.dtype(dtype)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        if not np.issubdtype(box.dtype, np.integer) or box.low.min() < 0 or box.high.max() > 2 or not box.shape:
            raise SpaceMismatchError(
                f"{self}: needs an integer Box board with values in 0..2 (0 empty, 1 and 2 the players' marks), "
                f"got {box}"
            )
        if self.planes:
            shape = (2, *box.shape)
            self.observation_space = spaces.Box(0, 1, shape, self.dtype)
            # Row ``mark`` of a table gives (own, opponent) for that cell value, per observer.
            self._tables = [
                np.array([[0, 0], [1, 0], [0, 1]], self.dtype),
                np.array([[0, 0], [0, 1], [1, 0]], self.dtype),
            ]
        else:
            self.observation_space = spaces.Box(-1, 1, box.shape, self.dtype)
            self._tables = [np.array([0, 1, -1], self.dtype), np.array([0, -1, 1], self.dtype)]

    def observation(self, observation: Any) -> np.ndarray:
        board = np.asarray(observation)
        seat = self.player if self.player is not None else np.count_nonzero(board) & 1
        view = self._tables[seat][board]
        return np.moveaxis(view, -1, 0).copy() if self.planes else view

    def observation_batch(self, observations: Any) -> np.ndarray:
        boards = np.asarray(observations)
        if self.player is not None:
            seats = np.full(len(boards), self.player)
        else:
            seats = np.count_nonzero(boards.reshape(len(boards), -1), axis=1) & 1
        tables = np.stack(self._tables)  # (seat, mark[, plane])
        view = tables[seats.reshape(-1, *[1] * (boards.ndim - 1)), boards]
        return np.moveaxis(view, -1, 1).copy() if self.planes else view

    def _arguments(self) -> str:
        options = [super()._arguments()]
        if self.player is not None:
            options.append(f"player={self.player}")
        if self.planes:
            options.append("planes=True")
        return ", ".join(filter(None, options))


class RotateBoard(Interface):
    """Rotate and/or mirror a board observation, and map actions and masks back.

    The last two axes of the Box observation are the board (rows, columns); leading axes
    (planes, stacked frames) are kept. The board is turned ``quarter_turns`` times
    counter-clockwise (``numpy.rot90``), then mirrored left-right if ``mirror``. Actions
    are either one per cell (``Discrete(rows * columns)``, cell ``row * columns + column``)
    or one per column (``Discrete(columns)``, as in connect four); the model acts on the
    transformed board and its action is mapped to the raw cell or column, and raw masks
    are permuted the same way.

    Args:
        inner: the interface underneath.
        quarter_turns: counter-clockwise quarter turns (any integer; taken modulo 4).
        mirror: mirror left-right after turning.

    Raises:
        SpaceMismatchError: at setup, for observations that are not a Box with at least
            two axes, odd turns of a non-square board, an action space that is not one
            per cell or per column, or column actions under a transform that does not
            keep columns as columns.

    Example:
        >>> import numpy as np
        >>> from gymnasium import spaces
        >>> itf = RotateBoard(quarter_turns=1)
        >>> itf.setup(spaces.Box(0, 8, (3, 3), np.int64), spaces.Discrete(9))
        >>> itf.transform_observation(np.arange(9).reshape(3, 3)).tolist()
        [[2, 5, 8], [1, 4, 7], [0, 3, 6]]
        >>> int(itf.transform_action(0))  # the model's top-left cell is raw cell 2
        2
    """

    @classmethod
    def contract_examples(cls) -> list[tuple[Interface, spaces.Space, spaces.Space]]:
        """Instances and raw spaces for ``arena interfaces --check``."""
        return [
            (cls(quarter_turns=1), spaces.Box(0, 2, (3, 3), np.int8), spaces.Discrete(9)),
            (cls(quarter_turns=0, mirror=True), spaces.Box(0, 2, (6, 7), np.int8), spaces.Discrete(7)),
        ]

    def __init__(self, inner: Interface | None = None, *, quarter_turns: int = 1, mirror: bool = False) -> None:
        super().__init__(inner)
        if not isinstance(quarter_turns, (int, np.integer)) or isinstance(quarter_turns, bool):
            raise InvalidValueError(f"{type(self).__name__}: quarter_turns must be an integer, got {quarter_turns!r}")
        self.quarter_turns = int(quarter_turns) % 4
        self.mirror = bool(mirror)

    def setup(self, observation_space: spaces.Space, action_space: spaces.Space) -> None:
        super().setup(observation_space, action_space)
        box = self._require_space(spaces.Box, "observation")
        actions = self._require_space(spaces.Discrete, "action")
        if len(box.shape) < 2:
            raise SpaceMismatchError(
                f"{self}: needs a Box observation with (rows, columns) as its last axes, got {box}"
            )
        *lead, rows, columns = box.shape
        if self.quarter_turns % 2 and rows != columns:
            raise SpaceMismatchError(f"{self}: odd quarter turns need a square board, got {rows}x{columns} in {box}")
        cells = np.arange(rows * columns).reshape(rows, columns)
        view = np.rot90(cells, self.quarter_turns)
        if self.mirror:
            view = np.fliplr(view)
        self._view_shape, self._lead = view.shape, tuple(lead)
        self._cells = view.reshape(-1).copy()  # model cell j shows raw cell _cells[j]
        n = int(actions.n)
        if n == rows * columns:
            self._actions = self._cells
        elif n == columns:
            raw_columns = view % columns
            if not (raw_columns == raw_columns[0]).all():
                raise SpaceMismatchError(
                    f"{self}: column actions ({actions}) need a transform that keeps columns as columns "
                    "(quarter_turns 0 or 2)"
                )
            self._actions = raw_columns[0].copy()
        else:
            raise SpaceMismatchError(
                f"{self}: needs one action per cell (Discrete({rows * columns})) or per column "
                f"(Discrete({columns})) of the {rows}x{columns} board, got {actions}"
            )
        self._start = int(actions.start)
        self.observation_space = box_space(self._permute(box.low), self._permute(box.high), None, box.dtype)

    def _permute(self, board: np.ndarray) -> np.ndarray:
        flat = np.asarray(board).reshape(*self._lead, -1)
        return flat[..., self._cells].reshape(*self._lead, *self._view_shape)

    def observation(self, observation: Any) -> np.ndarray:
        return self._permute(observation)

    def action(self, action: Any) -> int:
        return self._start + int(self._actions[int(action) - self._start])

    def action_mask(self, mask: Any) -> np.ndarray:
        return np.asarray(mask)[self._actions]

    def _arguments(self) -> str:
        options = [super()._arguments(), f"quarter_turns={self.quarter_turns}"]
        if self.mirror:
            options.append("mirror=True")
        return ", ".join(filter(None, options))
