"""Many tic-tac-toe or connect-four games stepped at once, on uint64 bitboards in numpy arrays.

:class:`TicTacToeBatch` and :class:`ConnectFourBatch` (also reachable as
``envs.tic_tac_toe.TicTacToeBatch`` and ``envs.connect_four.ConnectFourBatch``) play
``num_games`` games of the single envs side by side: one :meth:`~BoardBatch.step` costs a
fixed number of numpy calls whatever the number of games. Batched trainers
(:class:`arena.training.batched.BatchVecEnv`) and the throughput bench (``bench/batched_games.py``)
use them.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces

from arena.batch import TurnModel
from arena.errors import IllegalActionError, InvalidActionError, InvalidValueError, ResetNeeded
from arena.seeding import game_seeds
from envs.connect_four_bits import COLUMNS, ROWS, STRIDE, has_four_batch

__all__ = ["BoardBatch", "TicTacToeBatch", "ConnectFourBatch"]

_ONE = np.uint64(1)


def _tables(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every ``n``-bit set of legal actions: its bool mask, its size, and its k-th member."""
    sets = np.arange(1 << n)
    masks = ((sets[:, None] >> np.arange(n)) & 1).astype(bool)
    counts = masks.sum(axis=1)
    nth = np.zeros((1 << n, n), dtype=np.int64)
    for legal in range(1 << n):
        members = np.flatnonzero(masks[legal])
        nth[legal, : len(members)] = members
    return masks, counts, nth


class BoardBatch:
    """``num_games`` two-player alternating board games stepped together (the shared machinery).

    Subclasses fix the board and the rules (:class:`TicTacToeBatch`, :class:`ConnectFourBatch`).
    Every array has the games on axis 0; players are indexed 0 (``player_0``, moves first,
    mark 1) and 1 (``player_1``, mark 2).

    * ``reset(seed=s)`` starts every game; game ``g`` gets the seed
      ``arena.seeding.derive_seed(s, g)`` (or ``s[g]`` for a sequence), as
      :class:`SnakeBatch` does. These games have no randomness, so game ``g`` plays exactly
      what the single env plays after ``reset(seed=derive_seed(s, g))``, given the same actions.
    * ``step(actions)`` takes one action per game for the player to move (an integer
      array ``(num_games,)``); ``step(actions, games=idx)`` moves only the games ``idx``
      (distinct indices; ``actions`` then has ``len(idx)`` entries) and every returned
      array covers those games, in that order. Returns ``(observations, rewards,
      terminations, truncations, infos)``: observations ``(k, *board)`` int8, the board
      the single env shows the next mover; rewards ``(k, 2)`` float32 and the flags
      ``(k, 2)`` bool per player, as the single env gives them.
    * ``infos``: ``"action_mask"`` ``(k, n_actions)`` bool and ``"to_play"`` ``(k,)``
      int8 for the player to move next; ``"mover"`` ``(k,)`` int8, who moved;
      ``"episode_over"`` ``(k,)`` bool, the games that ended in this step;
      ``"final_observation"`` ``(m, *board)``, the last board of those ``m`` games.
      A game that ends is reset in the same step (auto-reset), so the observation,
      mask and ``to_play`` it returns already belong to its next episode.

    Edge cases: :meth:`step` before :meth:`reset` raises :class:`ResetNeeded`; an action
    out of range or on a full cell/column in any game raises (the batch is left as it
    was) naming the first such game, its action and its legal actions.

    Args:
        num_games: the number of games.
        copy: return fresh observation arrays (default); ``False`` may return the
            batch's own board buffer when all games step, which the next call overwrites.
    """

    name = "board"
    turns: TurnModel = "alternating"
    board_shape: tuple[int, ...] = ()
    n_actions = 0
    possible_agents = ("player_0", "player_1")

    def __init__(self, num_games: int, *, copy: bool = True) -> None:
        if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
            raise InvalidValueError(f"{type(self).__name__}: num_games must be a positive integer, got {num_games!r}")
        games = self.num_games = int(num_games)
        self.copy = bool(copy)
        self.single_observation_space = spaces.Box(0, 2, shape=self.board_shape, dtype=np.int8)
        self.single_action_space: spaces.Discrete = spaces.Discrete(self.n_actions)
        self._all_legal = (1 << self.n_actions) - 1
        self._mask_of, self._count_of, nth = _tables(self.n_actions)
        self._nth_flat = nth.reshape(-1)
        self._mask_flat = self._mask_of.reshape(-1)
        # rewards by 2 * mover + won: nothing, or +1 to the mover and -1 to the other
        self._points = np.array([[0, 0], [1, -1], [0, 0], [-1, 1]], dtype=np.float32)
        self._rows = np.arange(games)
        self._twice = 2 * self._rows  # flat offsets of each game's two bitboards
        self._cell_base = self._rows * int(np.prod(self.board_shape))  # and of its board cells
        self._bits = np.zeros((games, 2), dtype=np.uint64)  # one bitboard per player
        self._board = np.zeros((games, *self.board_shape), dtype=np.int8)
        self._cells = self._board.reshape(games, -1)
        self._legal = np.full(games, self._all_legal, dtype=np.int64)  # bit a: action a is legal
        self._to_play = np.zeros(games, dtype=np.int8)
        self._moves = np.zeros(games, dtype=np.int64)
        self._seeds = np.zeros(games, dtype=np.uint64)
        self._episodes = np.zeros(games, dtype=np.int64)
        self._rng = np.random.default_rng()
        self._started = False

    def __str__(self) -> str:
        return f"<{type(self).__name__} {self.num_games} games>"

    __repr__ = __str__

    # ------------------------------------------------------------------ episode
    def reset(self, *, seed: int | Any | None = None, options: dict[str, Any] | None = None):
        """Start a new episode in every game; returns ``(observations, infos)``.

        Args:
            seed: an int (game ``g`` gets ``derive_seed(seed, g)``), a sequence of one
                non-negative int per game, or ``None``.
            options: unused (the games have none); accepted for the Gymnasium signature.

        Returns:
            Empty boards ``(num_games, *board)`` and ``infos`` with ``"action_mask"``
            (all legal) and ``"to_play"`` (all 0).
        """
        games = self.num_games
        if seed is None:
            if not self._started:
                self._seeds[:] = self._rng.integers(0, 2**63, size=games, dtype=np.uint64)
        else:
            self._seeds[:] = np.array(game_seeds(seed, games, self), dtype=np.uint64)
        self._episodes[:] = 0 if seed is not None or not self._started else self._episodes + 1
        self._started = True
        self._clear(self._rows)
        return self.observations, {"action_mask": self.action_mask, "to_play": self.to_play}

    def _clear(self, games: np.ndarray) -> None:
        self._bits[games] = 0
        self._board[games] = 0
        self._legal[games] = self._all_legal
        self._to_play[games] = 0
        self._moves[games] = 0

    # --------------------------------------------------------------------- step
    def step(self, actions: Any, games: Any = None):
        """Play one move in every game (or in ``games``); see the class docstring.

        Raises:
            ResetNeeded: before the first :meth:`reset`.
            InvalidActionError: ``actions`` of the wrong shape or type, bad ``games``.
            IllegalActionError: an action the game's mask forbids (out of range, or a
                full cell/column), naming the game.
        """
        rows, actions = self._check_call(actions, games)
        n = self.n_actions
        sel = slice(None) if games is None else rows  # a slice spares the gathers when every game moves
        legal = self._legal[sel]
        if actions.size and (actions.min() < 0 or actions.max() >= n or not self._mask_flat[legal * n + actions].all()):
            bad = (actions < 0) | (actions >= n)
            bad |= ~self._mask_flat[legal * n + np.where(bad, 0, actions)]
            i = int(np.flatnonzero(bad)[0])
            raise IllegalActionError(
                f"{self}: game {int(rows[i])}: action {int(actions[i])} is illegal for "
                f"{self.possible_agents[int(self._to_play[rows[i]])]}; legal actions are "
                f"{np.flatnonzero(self._mask_of[legal[i]]).tolist()}"
            )
        mover = self._to_play.copy() if games is None else self._to_play[rows]
        player = mover.astype(np.int64)
        bits, legal = self._place(rows, actions, player, legal)
        self._legal[sel] = legal
        moves = self._moves[sel] + 1
        self._moves[sel] = moves
        won = self._wins(bits)
        over = won | (moves == self._cells.shape[1])
        rewards = self._points[2 * player + won]  # (k, 2): +-1 to the players when the mover won
        terminations = np.stack((over, over), axis=1)
        next_player = 1 - mover
        ended = np.flatnonzero(over)
        if len(ended):
            done = rows[ended]
            final = self._board[done]
            self._clear(done)
            self._episodes[done] += 1
            next_player[ended] = 0
            legal = self._legal[sel]
        else:
            final = self._board[:0].copy()
        self._to_play[sel] = next_player
        if games is None:
            observations = self._board.copy() if self.copy else self._board
        else:
            observations = self._board[rows]
        infos = {
            "action_mask": self._mask_of[legal],
            "to_play": next_player,
            "mover": mover,
            "episode_over": over,
            "final_observation": final,
        }
        return observations, rewards, terminations, np.zeros_like(terminations), infos

    def _check_call(self, actions: Any, games: Any) -> tuple[np.ndarray, np.ndarray]:
        """The game rows and int64 actions of a step call, checked (raises as :meth:`step` says)."""
        if not self._started:
            raise ResetNeeded(f"{self}: step() called before reset()")
        if games is None:
            rows = self._rows
        else:
            rows = np.asarray(games)
            if (
                rows.ndim != 1
                or rows.dtype.kind not in "iu"
                or (rows.size and (rows.min() < 0 or rows.max() >= self.num_games))
            ):
                raise InvalidActionError(
                    f"{self}: games must be a 1-d integer array of game indices in "
                    f"0..{self.num_games - 1}, got {games!r}"
                )
            rows = rows.astype(np.int64, copy=False)
        actions = np.asarray(actions)
        if actions.shape != rows.shape or actions.dtype.kind not in "iu":
            raise InvalidActionError(
                f"{self}: actions must be an integer array of shape {rows.shape} (one per game "
                f"that moves), got {actions.dtype} array of shape {actions.shape}"
            )
        actions = actions.astype(np.int64, copy=False)
        return rows, actions

    def _place(self, rows: np.ndarray, actions: np.ndarray, player: np.ndarray, legal: np.ndarray):
        """Put the movers' marks; returns (their new bitboards, the new legal sets)."""
        raise NotImplementedError

    def _wins(self, bits: np.ndarray) -> np.ndarray:
        """Which bitboards hold a winning line."""
        raise NotImplementedError

    # ---------------------------------------------------------------- helpers
    def random_actions(self, rng: np.random.Generator, games: Any = None) -> np.ndarray:
        """A uniformly random legal action for every game (or for ``games``), drawn with ``rng``.

        One uniform draw per game picks among its legal actions, so the batch's random
        player costs a few numpy calls per step.
        """
        legal = self._legal if games is None else self._legal[games]
        picks = (rng.random(len(legal)) * self._count_of[legal]).astype(np.int64)
        return self._nth_flat[legal * self.n_actions + picks]

    @property
    def action_mask(self) -> np.ndarray:
        """The ``(num_games, n_actions)`` bool mask of the player to move in each game."""
        return self._mask_of[self._legal]

    @property
    def to_play(self) -> np.ndarray:
        """The ``(num_games,)`` player to move in each game (a copy)."""
        return self._to_play.copy()

    @property
    def observations(self) -> np.ndarray:
        """The current boards ``(num_games, *board)`` (a copy)."""
        return self._board.copy()


_TTT_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
_TTT_BITS = np.array([1 << cell for cell in range(9)], dtype=np.uint64)
_TTT_WINS = np.array([any(all(s >> c & 1 for c in line) for line in _TTT_LINES) for s in range(512)])


class TicTacToeBatch(BoardBatch):
    """``num_games`` games of :class:`~envs.tic_tac_toe.TicTacToe` stepped together.

    Observations ``(k, 3, 3)`` int8 (0 empty, 1 ``player_0``, 2 ``player_1``), actions
    0..8 (the cell ``3 * row + column``), as the single env; see :class:`BoardBatch` for
    the API. Bitboards are 9-bit sets in uint64 arrays; a 512-entry table tells wins.
    Only the single env's default ``illegal_action="raise"`` rules are batched.

    Example:
        >>> import numpy as np
        >>> batch = TicTacToeBatch(4)
        >>> obs, infos = batch.reset(seed=0)
        >>> obs.shape, infos["action_mask"].shape
        ((4, 3, 3), (4, 9))
        >>> obs, rewards, terms, truncs, infos = batch.step(np.array([4, 0, 8, 4]))
        >>> obs[0].tolist(), infos["to_play"].tolist()
        ([[0, 0, 0], [0, 1, 0], [0, 0, 0]], [1, 1, 1, 1])
    """

    name = "tic_tac_toe"
    board_shape = (3, 3)
    n_actions = 9

    def _place(self, rows, actions, player, legal):
        seat = (self._twice if rows is self._rows else 2 * rows) + player  # flat 1-d indices: fast gathers
        bits = self._bits.reshape(-1)[seat] | _TTT_BITS[actions]
        self._bits.reshape(-1)[seat] = bits
        self._cells.reshape(-1)[(self._cell_base if rows is self._rows else 9 * rows) + actions] = player + 1
        return bits, legal & ~(1 << actions)

    def _wins(self, bits):
        return _TTT_WINS[bits.astype(np.intp)]  # numpy indexes with uint64 arrays on a slow path


_C4_ROWS, _C4_COLUMNS, _C4_STRIDE = ROWS, COLUMNS, STRIDE


class ConnectFourBatch(BoardBatch):
    """``num_games`` games of :class:`~envs.connect_four.ConnectFour` stepped together.

    Observations ``(k, 6, 7)`` int8 with row 0 at the top, actions 0..6 (the column),
    as the single env; see :class:`BoardBatch` for the API. Each player's discs are a
    bitboard in a uint64 array (column ``c``, height ``h`` is bit ``7 * c + h``, as
    :mod:`envs.connect_four_bits` has it), so four in a row is four shifts and
    ands over all games at once.

    Example:
        >>> import numpy as np
        >>> batch = ConnectFourBatch(3)
        >>> obs, infos = batch.reset(seed=0)
        >>> obs, rewards, terms, truncs, infos = batch.step(np.array([3, 0, 6]))
        >>> obs[0, 5].tolist()
        [0, 0, 0, 1, 0, 0, 0]
        >>> batch.random_actions(np.random.default_rng(0)).shape
        (3,)
    """

    name = "connect_four"
    board_shape = (_C4_ROWS, _C4_COLUMNS)
    n_actions = _C4_COLUMNS

    def __init__(self, num_games: int, *, copy: bool = True) -> None:
        super().__init__(num_games, copy=copy)
        self._heights = np.zeros((self.num_games, _C4_COLUMNS), dtype=np.int64)
        self._column_base = _C4_COLUMNS * self._rows

    def _clear(self, games: np.ndarray) -> None:
        super()._clear(games)
        self._heights[games] = 0

    def _place(self, rows, actions, player, legal):
        whole = rows is self._rows  # every game moves: the per-game offsets are cached
        column = (self._column_base if whole else _C4_COLUMNS * rows) + actions  # flat 1-d indices: fast gathers
        heights = self._heights.reshape(-1)
        height = heights[column]
        heights[column] = height + 1
        seat = (self._twice if whole else 2 * rows) + player
        bits = self._bits.reshape(-1)[seat] | (_ONE << (actions * _C4_STRIDE + height).astype(np.uint64))
        self._bits.reshape(-1)[seat] = bits
        base = self._cell_base if whole else _C4_ROWS * _C4_COLUMNS * rows
        self._cells.reshape(-1)[base + actions + _C4_COLUMNS * (_C4_ROWS - 1 - height)] = player + 1
        full = (height == _C4_ROWS - 1).astype(np.int64)
        return bits, legal & ~(full << actions)

    def _wins(self, bits):
        return has_four_batch(bits)

    @property
    def heights(self) -> np.ndarray:
        """The ``(num_games, 7)`` number of discs in each column (a copy)."""
        return self._heights.copy()
