"""Rock-paper-scissors: two players move at once, for a number of rounds."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from gymnasium import spaces

from arena.env import MultiAgentEnv

__all__ = ["RockPaperScissors"]

ROCK, PAPER, SCISSORS, NONE = 0, 1, 2, 3
_NAMES = ("rock", "paper", "scissors")


class RockPaperScissors(MultiAgentEnv):
    """Simultaneous rock-paper-scissors for ``player_0`` and ``player_1``.

    * **Observation** (both players, every round): ``Discrete(4)``, the opponent's
      move in the previous round (0 rock, 1 paper, 2 scissors), 3 before the first round.
    * **Action**: ``Discrete(3)``: 0 rock, 1 paper, 2 scissors. There is no mask
      (every move is always legal).
    * **Rewards**: per round, +1 to the winner and -1 to the loser, 0 to both on a tie.
    * **End**: both players terminate after ``rounds`` rounds.

    Args:
        rounds: the number of rounds in an episode (at least 1).
        render_mode: ``"ansi"`` to render the last round as text.

    Example:
        >>> env = RockPaperScissors(rounds=2)
        >>> obs, _ = env.reset(seed=0)
        >>> obs
        {'player_0': 3, 'player_1': 3}
        >>> obs, rewards, *_ = env.step({"player_0": 0, "player_1": 2})
        >>> rewards
        {'player_0': 1.0, 'player_1': -1.0}
    """

    metadata = {"render_modes": ["ansi"], "name": "rock_paper_scissors"}
    env_name = "rock_paper_scissors"

    def __init__(self, rounds: int = 3, render_mode: str | None = None) -> None:
        if not isinstance(rounds, (int, np.integer)) or rounds < 1:
            raise ValueError(f"RockPaperScissors: rounds must be a positive integer, got {rounds!r}")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"RockPaperScissors: render_mode must be None or 'ansi', got {render_mode!r}")
        self.rounds = int(rounds)
        self.render_mode = render_mode
        self.possible_agents = ["player_0", "player_1"]
        self.agents = []
        observation = spaces.Discrete(4)
        action = spaces.Discrete(3)
        self.observation_spaces = {agent: observation for agent in self.possible_agents}
        self.action_spaces = {agent: action for agent in self.possible_agents}
        self._acting: tuple[str, ...] | None = None
        self._round = 0
        self._last = (NONE, NONE)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        """Start round one; the game has no randomness."""
        super().reset(seed=seed)
        self.agents = list(self.possible_agents)
        self._acting = ("player_0", "player_1")
        self._round = 0
        self._last = (NONE, NONE)
        return {"player_0": NONE, "player_1": NONE}, {"player_0": {}, "player_1": {}}

    def step(self, actions: Mapping[str, Any]):
        """Play one round; see :meth:`MultiAgentEnv.step` for the edge cases."""
        self.check_actions(actions, self._acting)
        a, b = int(actions["player_0"]), int(actions["player_1"])
        self._last = (a, b)
        self._round += 1
        score = 0.0 if a == b else (1.0 if (a - b) % 3 == 1 else -1.0)
        rewards = {"player_0": score, "player_1": -score}
        over = self._round >= self.rounds
        flags = {"player_0": over, "player_1": over}
        truncations = {"player_0": False, "player_1": False}
        if over:
            self.agents = []
            self._acting = None
            return {}, rewards, flags, truncations, {"player_0": {}, "player_1": {}}
        return {"player_0": b, "player_1": a}, rewards, flags, truncations, {"player_0": {}, "player_1": {}}

    def render(self) -> str | None:
        """The round number and the last moves, as text."""
        if self.render_mode != "ansi":
            return None
        if self._last[0] == NONE:
            return f"round {self._round}/{self.rounds}: no moves yet\n"
        return (f"round {self._round}/{self.rounds}: player_0 {_NAMES[self._last[0]]}, "
                f"player_1 {_NAMES[self._last[1]]}\n")

    def action_names(self, agent: str) -> list[str]:
        """Readable names of the actions."""
        return list(_NAMES)
