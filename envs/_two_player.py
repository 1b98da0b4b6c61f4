"""What the two-player turn-based games share: the first turn of a game and its end.

Tic-tac-toe, connect four and the poker games are played by ``player_0`` and ``player_1`` in turn;
each keeps ``_acting`` (who must act next) and ends a game the same way, so the one spelling of
those returns lives here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from arena.env import MultiAgentEnv, StepResult

__all__ = ["TwoPlayerGame"]


class TwoPlayerGame(MultiAgentEnv):
    """A game of ``player_0`` and ``player_1`` taking turns (a base class of the bundled turn-based games).

    A subclass keeps ``_acting`` (the player to move, ``None`` between games); a board game also
    keeps ``_board`` (the observation), ``_mask`` (its legal moves) and ``_to_move`` for
    :meth:`_first_turn`.

    Example:
        >>> import envs
        >>> env = envs.make("tic_tac_toe")
        >>> _ = env.reset(seed=0)
        >>> env._end({"player_0": 1.0, "player_1": -1.0})[2], env.agents
        ({'player_0': True, 'player_1': True}, [])
    """

    _acting: tuple[str, ...] | None
    _board: np.ndarray
    _mask: np.ndarray
    _to_move: int

    def _first_turn(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start a game on the board as it stands, every move legal, ``player_0`` to move: ``reset``'s return."""
        self._mask.fill(1)  # fill, not slice assignment: a fraction of the cost on small arrays
        self._to_move = 0
        self.agents = list(self.possible_agents)
        self._acting = ("player_0",)
        return {"player_0": self._board.copy()}, {"player_0": {"action_mask": self._mask.copy()}}

    def _end(self, rewards: dict[str, float]) -> StepResult:
        """End the game: both players terminate with ``rewards`` and nobody acts next (``step``'s return)."""
        self.agents = []
        self._acting = None
        return (
            {},
            rewards,
            {"player_0": True, "player_1": True},
            {"player_0": False, "player_1": False},
            {"player_0": {}, "player_1": {}},
        )
