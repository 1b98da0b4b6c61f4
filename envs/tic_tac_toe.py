"""Tic-tac-toe: two players alternate on a 3x3 board."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from envs._clone import clone_game
from envs._two_player import TwoPlayerGame

__all__ = ["TicTacToe", "TicTacToeBatch"]

_LINES = ((0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6))
_LINES_THROUGH = tuple(tuple(line for line in _LINES if cell in line) for cell in range(9))
_SYMBOLS = ".XO"


class TicTacToe(TwoPlayerGame):
    """Tic-tac-toe for ``player_0`` (X, moves first) and ``player_1`` (O).

    * **Observation** (only for the player to move): ``Box(0, 2, (3, 3), int8)``, the
      absolute board: 0 empty, 1 a mark of ``player_0``, 2 a mark of ``player_1``. The
      observer is always the player to move (use ``interfaces.board.EgoBoard`` for an
      own/opponent view).
    * **Action**: ``Discrete(9)``, the cell ``3 * row + column``;
      ``infos[agent]["action_mask"]`` marks the empty cells.
    * **Rewards**: +1 to the winner and -1 to the loser when a line of three is made,
      0 to both on a draw (full board) and on every other move.
    * **End**: a line of three or a full board terminates both players.
    * **Illegal moves**: an occupied cell raises :class:`~arena.errors.IllegalActionError`
      by default. With ``illegal_action="penalty"`` (RLlib's example variant) the move
      is ignored, the mover gets ``illegal_penalty`` and the turn passes.

    Args:
        illegal_action: ``"raise"`` (default) or ``"penalty"``.
        illegal_penalty: the reward for an illegal move in the penalty variant.
        render_mode: ``"ansi"`` to render as text (``render()`` returns a string).

    Example:
        >>> env = TicTacToe()
        >>> obs, infos = env.reset(seed=0)
        >>> infos["player_0"]["action_mask"].tolist()
        [1, 1, 1, 1, 1, 1, 1, 1, 1]
    """

    metadata = {"render_modes": ["ansi"], "name": "tic_tac_toe"}
    env_name = "tic_tac_toe"
    perfect_information = True  # plannable: see arena.agents.mcts
    masked_actions = True  # legal moves in infos[agent]['action_mask']
    result_kind = "outcome"  # win, draw or loss

    def __init__(
        self, illegal_action: str = "raise", illegal_penalty: float = -1.0, render_mode: str | None = None
    ) -> None:
        if illegal_action not in ("raise", "penalty"):
            raise InvalidValueError(f"TicTacToe: illegal_action must be 'raise' or 'penalty', got {illegal_action!r}")
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"TicTacToe: render_mode must be None or 'ansi', got {render_mode!r}")
        if (
            isinstance(illegal_penalty, bool)
            or not isinstance(illegal_penalty, (int, float, np.integer, np.floating))
            or not np.isfinite(illegal_penalty)
        ):
            raise InvalidValueError(f"TicTacToe: illegal_penalty must be a finite number, got {illegal_penalty!r}")
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        board = spaces.Box(0, 2, shape=(3, 3), dtype=np.int8)
        self.observation_spaces = {agent: board for agent in self.possible_agents}
        action: spaces.Discrete = spaces.Discrete(9)
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._cells = [0] * 9
        self._board = np.zeros((3, 3), dtype=np.int8)
        self._flat = self._board.reshape(9)
        self._to_move = 0
        self._acting: tuple[str, ...] | None = None
        self._mask = np.ones(9, dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Empty the board; ``player_0`` moves first. The game has no randomness."""
        super().reset(seed=seed)
        self._cells = [0] * 9
        self._board.fill(0)
        return self._first_turn()

    def step(self, actions: Mapping[str, Any]):
        """Place the mover's mark; see :meth:`MultiAgentEnv.step` for the edge cases."""
        to_move, cells, acting = self._to_move, self._cells, self._acting
        # the common call, checked here: a dict of one plain int for the mover, an empty cell
        action = actions.get(acting[0]) if acting is not None and type(actions) is dict and len(actions) == 1 else None
        if type(action) is not int or not 0 <= action < 9 or cells[action]:
            enforce = self.illegal_action == "raise"
            action = self.turn_action(actions, acting, self._mask, enforce_mask=enforce)
        mover, other = self.possible_agents[to_move], self.possible_agents[1 - to_move]
        if cells[action]:  # penalty variant: the move is ignored, the turn passes
            rewards = {mover: self.illegal_penalty, other: 0.0}
            return self._next(other, rewards, False)
        mark = to_move + 1
        cells[action] = mark
        self._flat[action] = mark
        self._mask[action] = 0
        for a, b, c in _LINES_THROUGH[action]:
            if cells[a] == cells[b] == cells[c]:
                return self._next(other, {mover: 1.0, other: -1.0}, True)
        if 0 not in cells:
            return self._next(other, {mover: 0.0, other: 0.0}, True)
        # the common case, inlined: the game goes on
        self._to_move = 1 - to_move
        self._acting = (other,)
        return (
            {other: self._board.copy()},
            {mover: 0.0, other: 0.0},
            {mover: False, other: False},
            {mover: False, other: False},
            {other: {"action_mask": self._mask.copy()}},
        )

    def _next(self, other: str, rewards: dict[str, float], over: bool):
        if over:
            return self._end(rewards)
        self._to_move = 1 - self._to_move
        self._acting = (other,)
        flags = {"player_0": False, "player_1": False}
        return ({other: self._board.copy()}, rewards, flags, dict(flags), {other: {"action_mask": self._mask.copy()}})

    @property
    def acting_agents(self) -> tuple[str, ...]:
        """The agents that must act next (the player to move; empty when no game runs)."""
        return self._acting or ()

    def __getstate__(self) -> dict[str, Any]:
        # `_flat` is a view of `_board`: a copy would make it an array of its own and lose the link
        return {key: value for key, value in self.__dict__.items() if key != "_flat"}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._flat = self._board.reshape(9)

    def clone(self) -> TicTacToe:
        """An independent copy of this env, game in progress included (for planners)."""
        twin = clone_game(self, "_cells", "_board", "_mask")
        twin._flat = twin._board.reshape(9)  # a view of the twin's own board
        return twin

    def render(self) -> str | None:
        """The board as three lines of ``X``, ``O`` and ``.``."""
        if self.render_mode != "ansi":
            return None
        return self.board_text()

    def board_text(self) -> str:
        """The board as text, whatever the render mode."""
        rows = ("".join(_SYMBOLS[c] for c in self._cells[r * 3 : r * 3 + 3]) for r in range(3))
        return "\n".join(rows) + "\n"

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions (``"r0c2"`` for row 0, column 2)."""
        return [f"r{i // 3}c{i % 3}" for i in range(9)]

    def make_batch(self, num_games: int, **options: Any) -> TicTacToeBatch:
        """``num_games`` games of this env stepped together in numpy (:class:`TicTacToeBatch`).

        Raises:
            ValueError: this env plays the ``"penalty"`` variant, which the batch does not have.
        """
        if self.illegal_action != "raise":
            raise InvalidValueError(
                f"{self}: TicTacToeBatch plays the default rules (illegal_action='raise'), "
                f"not illegal_action={self.illegal_action!r}"
            )
        return TicTacToeBatch(num_games, **options)


# At the end: the batch module needs nothing from this one, and this name must be here.
from envs.board_batch import TicTacToeBatch  # noqa: E402
