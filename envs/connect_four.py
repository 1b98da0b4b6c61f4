"""Connect four: two players drop discs into a 6x7 grid.

Its pieces: the batch :class:`ConnectFourBatch` (:mod:`envs.board_batch`), the bitboard
(:mod:`envs.connect_four_bits`), the scripted ``connect_four_heuristic`` (:mod:`envs.connect_four_agents`)
and the recipe (:func:`envs.recipes.connect_four`, with the generic ``ego_board`` interface).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.errors import InvalidValueError
from envs._clone import clone_game
from envs._two_player import TwoPlayerGame
from envs.connect_four_bits import COLUMNS, ROWS, STRIDE, has_four

__all__ = ["ConnectFour", "ConnectFourBatch", "ROWS", "COLUMNS", "has_four"]

_SYMBOLS = ".XO"


class ConnectFour(TwoPlayerGame):
    """Connect four for ``player_0`` (X, moves first) and ``player_1`` (O).

    * **Observation** (only for the player to move): ``Box(0, 2, (6, 7), int8)``, the
      absolute board with row 0 at the top: 0 empty, 1 a disc of ``player_0``, 2 a disc
      of ``player_1``. The observer is always the player to move (equal disc counts
      mean ``player_0``); use ``interfaces.board.EgoBoard`` for an own/opponent view.
    * **Action**: ``Discrete(7)``, the column to drop a disc into; the disc lands on the
      lowest empty row. ``infos[agent]["action_mask"]`` marks the columns that are not full.
    * **Rewards**: +1 to the winner and -1 to the loser when four discs line up in a
      row, a column or a diagonal; 0 to both on a draw (full board) and on every other move.
    * **End**: four in a line or a full board (42 discs) terminates both players.
    * **Illegal moves**: a full column raises :class:`~arena.errors.IllegalActionError`.

    The game is deterministic with perfect information, so it can be planned on
    (``perfect_information`` is True, :meth:`clone` copies a game in progress, and
    :attr:`acting_agents` names the player to move), e.g. by
    :class:`arena.agents.mcts.MCTSAgent`.

    Args:
        render_mode: ``"ansi"`` to render as text (``render()`` returns a string).

    Example:
        >>> env = ConnectFour()
        >>> obs, infos = env.reset(seed=0)
        >>> obs["player_0"].shape
        (6, 7)
        >>> obs, rewards, *_ = env.step({"player_0": 3})
        >>> obs["player_1"][5].tolist()
        [0, 0, 0, 1, 0, 0, 0]
    """

    metadata = {"render_modes": ["ansi"], "name": "connect_four"}
    env_name = "connect_four"
    perfect_information = True
    masked_actions = True  # legal moves in infos[agent]['action_mask']
    result_kind = "outcome"  # win, draw or loss

    def __init__(self, render_mode: str | None = None) -> None:
        if render_mode not in (None, "ansi"):
            raise InvalidValueError(f"ConnectFour: render_mode must be None or 'ansi', got {render_mode!r}")
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        board = spaces.Box(0, 2, shape=(ROWS, COLUMNS), dtype=np.int8)
        self.observation_spaces = {agent: board for agent in self.possible_agents}
        action: spaces.Discrete = spaces.Discrete(COLUMNS)
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._board = np.zeros((ROWS, COLUMNS), dtype=np.int8)
        self._heights = [0] * COLUMNS
        self._bits = [0, 0]  # one bitboard per player
        self._moves = 0
        self._to_move = 0
        self._acting: tuple[str, ...] | None = None
        self._mask = np.ones(COLUMNS, dtype=np.int8)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Empty the board; ``player_0`` moves first. The game has no randomness."""
        super().reset(seed=seed)
        self._board.fill(0)
        self._heights = [0] * COLUMNS
        self._bits = [0, 0]
        self._moves = 0
        return self._first_turn()

    def step(self, actions: Mapping[str, Any]):
        """Drop the mover's disc; see :meth:`MultiAgentEnv.step` for the edge cases."""
        mover = self.possible_agents[self._to_move]
        column = self.turn_action(actions, self._acting, self._mask)
        height = self._heights[column]
        self._heights[column] = height + 1
        if height + 1 == ROWS:
            self._mask[column] = 0
        self._board[ROWS - 1 - height, column] = self._to_move + 1
        bits = self._bits[self._to_move] | (1 << (column * STRIDE + height))
        self._bits[self._to_move] = bits
        self._moves += 1
        other = self.possible_agents[1 - self._to_move]
        if has_four(bits):
            return self._end({mover: 1.0, other: -1.0})
        if self._moves == ROWS * COLUMNS:
            return self._end({mover: 0.0, other: 0.0})
        self._to_move = 1 - self._to_move
        self._acting = (other,)
        flags = {"player_0": False, "player_1": False}
        return (
            {other: self._board.copy()},
            {mover: 0.0, other: 0.0},
            flags,
            dict(flags),
            {other: {"action_mask": self._mask.copy()}},
        )

    # --------------------------------------------------------------- planning
    @property
    def acting_agents(self) -> tuple[str, ...]:
        """The agents that must act next (the player to move; empty when no game runs)."""
        return self._acting or ()

    def clone(self) -> ConnectFour:
        """An independent copy of this env, game in progress included (for planners)."""
        return clone_game(self, "_board", "_heights", "_bits", "_mask")

    # -------------------------------------------------------------- rendering
    def render(self) -> str | None:
        """The board as six lines of ``X``, ``O`` and ``.``, with column numbers below."""
        if self.render_mode != "ansi":
            return None
        return self.board_text()

    def board_text(self) -> str:
        """The board as text, whatever the render mode."""
        rows = ("".join(_SYMBOLS[c] for c in row) for row in self._board.tolist())
        return "\n".join(rows) + "\n" + "".join(str(c) for c in range(COLUMNS)) + "\n"

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions (``"column 3"``)."""
        return [f"column {c}" for c in range(COLUMNS)]

    def make_batch(self, num_games: int, **options: Any) -> ConnectFourBatch:
        """``num_games`` games of this env stepped together in numpy (:class:`ConnectFourBatch`)."""
        return ConnectFourBatch(num_games, **options)


# At the end: the batch module needs nothing from this one, and this name must be here.
from envs.board_batch import ConnectFourBatch  # noqa: E402
